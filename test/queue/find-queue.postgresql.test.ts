import { PG_TEST_URL } from "../helpers/databases";
import { queueSuite } from "./find-queue.suite";

queueSuite("postgresql", Boolean(PG_TEST_URL));
