import { executorSuite } from "./executor.suite";

executorSuite("sqlite");
