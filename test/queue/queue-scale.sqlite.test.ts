import { queueScaleSuite } from "./queue-scale.suite";

queueScaleSuite("sqlite");
