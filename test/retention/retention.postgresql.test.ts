import { PG_TEST_URL } from "../helpers/databases";
import { retentionSuite } from "./retention.suite";

retentionSuite("postgresql", Boolean(PG_TEST_URL));
