import { PG_TEST_URL } from "../helpers/databases";
import { directSqlSuite } from "./direct-sql.suite";

directSqlSuite("postgresql", Boolean(PG_TEST_URL));
