import { PG_TEST_URL } from "../helpers/databases";
import { standingSuite } from "./standing.suite";

standingSuite("postgresql", Boolean(PG_TEST_URL));
