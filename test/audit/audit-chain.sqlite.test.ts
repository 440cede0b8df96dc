import { auditSuite } from "./audit-chain.suite";

auditSuite("sqlite");
