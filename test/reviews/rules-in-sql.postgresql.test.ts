import { PG_TEST_URL } from "../helpers/databases";
import { rulesInSqlSuite } from "./rules-in-sql.suite";

rulesInSqlSuite("postgresql", Boolean(PG_TEST_URL));
