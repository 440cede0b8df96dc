import { PG_TEST_URL } from "../helpers/databases";
import { auditStreamAppsSuite } from "./audit-stream-apps.suite";

auditStreamAppsSuite("postgresql", Boolean(PG_TEST_URL));
