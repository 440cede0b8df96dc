import { PG_TEST_URL } from "../helpers/databases";
import { crashSafetySuite } from "./crash-safety.suite";

crashSafetySuite("postgresql", Boolean(PG_TEST_URL));
