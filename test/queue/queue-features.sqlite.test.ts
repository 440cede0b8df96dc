import { queueFeaturesSuite } from "./queue-features.suite";

queueFeaturesSuite("sqlite");
