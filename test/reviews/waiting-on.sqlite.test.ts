import { waitingOnSuite } from "./waiting-on.suite";

waitingOnSuite("sqlite");
