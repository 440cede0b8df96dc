import { PG_TEST_URL } from "../helpers/databases";
import { policiesSuite } from "./policies.suite";

policiesSuite("postgresql", Boolean(PG_TEST_URL));
