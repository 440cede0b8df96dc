import { neighboursSuite } from "./neighbours.suite";

neighboursSuite("sqlite");
