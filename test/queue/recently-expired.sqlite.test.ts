import { recentlyExpiredSuite } from "./recently-expired.suite";

recentlyExpiredSuite("sqlite");
