import { rulesInSqlSuite } from "./rules-in-sql.suite";

rulesInSqlSuite("sqlite");
