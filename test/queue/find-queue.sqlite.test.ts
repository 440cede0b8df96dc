import { queueSuite } from "./find-queue.suite";

queueSuite("sqlite");
