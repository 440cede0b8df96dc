import { servicesAuditSuite } from "./services-audit.suite";

servicesAuditSuite("sqlite");
