import { PG_TEST_URL } from "../helpers/databases";
import { auditStreamSuite } from "./audit-stream.suite";

auditStreamSuite("postgresql", Boolean(PG_TEST_URL));
