import { PG_TEST_URL } from "../helpers/databases";
import { usersSuite } from "./users.suite";

usersSuite("postgresql", Boolean(PG_TEST_URL));
