import { metricsSuite } from "./metrics.suite";

metricsSuite("postgresql");
