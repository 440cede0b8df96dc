import { directSqlSuite } from "./direct-sql.suite";

directSqlSuite("sqlite");
