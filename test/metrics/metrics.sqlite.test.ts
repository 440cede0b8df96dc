import { metricsSuite } from "./metrics.suite";

metricsSuite("sqlite");
