import { crashSafetySuite } from "./crash-safety.suite";

crashSafetySuite("sqlite");
