import { executorSuite } from "./executor.suite";

executorSuite("postgresql");
