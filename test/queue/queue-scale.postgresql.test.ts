import { PG_TEST_URL } from "../helpers/databases";
import { queueScaleSuite } from "./queue-scale.suite";

queueScaleSuite("postgresql", Boolean(PG_TEST_URL));
