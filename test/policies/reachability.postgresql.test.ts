import { PG_TEST_URL } from "../helpers/databases";
import { reachabilitySuite } from "./reachability.suite";

reachabilitySuite("postgresql", Boolean(PG_TEST_URL));
