import { reachabilitySuite } from "./reachability.suite";

reachabilitySuite("sqlite");
