import { awaySuite } from "./away.suite";

awaySuite("sqlite");
