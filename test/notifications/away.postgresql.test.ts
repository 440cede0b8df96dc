import { PG_TEST_URL } from "../helpers/databases";
import { awaySuite } from "./away.suite";

awaySuite("postgresql", Boolean(PG_TEST_URL));
