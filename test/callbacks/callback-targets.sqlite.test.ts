import { callbackTargetSuite } from "./callback-targets.suite";

callbackTargetSuite("sqlite");
