import { PG_TEST_URL } from "../helpers/databases";
import { queueFeaturesSuite } from "./queue-features.suite";

queueFeaturesSuite("postgresql", Boolean(PG_TEST_URL));
