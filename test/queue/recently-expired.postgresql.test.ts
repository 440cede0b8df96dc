import { PG_TEST_URL } from "../helpers/databases";
import { recentlyExpiredSuite } from "./recently-expired.suite";

recentlyExpiredSuite("postgresql", Boolean(PG_TEST_URL));
