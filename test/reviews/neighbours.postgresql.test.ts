import { PG_TEST_URL } from "../helpers/databases";
import { neighboursSuite } from "./neighbours.suite";

neighboursSuite("postgresql", Boolean(PG_TEST_URL));
