import { PG_TEST_URL } from "../helpers/databases";
import { servicesAuditSuite } from "./services-audit.suite";

servicesAuditSuite("postgresql", Boolean(PG_TEST_URL));
