import { PG_TEST_URL } from "../helpers/databases";
import { auditSuite } from "./audit-chain.suite";

auditSuite("postgresql", Boolean(PG_TEST_URL));
