import { liveEventsSuite } from "./live-events.suite";

liveEventsSuite("postgresql");
