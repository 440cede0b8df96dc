import { PG_TEST_URL } from "../helpers/databases";
import { timeBoundRolesSuite } from "./time-bound-roles.suite";

timeBoundRolesSuite("postgresql", Boolean(PG_TEST_URL));
