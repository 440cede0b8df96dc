import { auditStreamAppsSuite } from "./audit-stream-apps.suite";

auditStreamAppsSuite("sqlite");
