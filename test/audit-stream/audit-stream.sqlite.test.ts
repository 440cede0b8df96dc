import { auditStreamSuite } from "./audit-stream.suite";

auditStreamSuite("sqlite");
