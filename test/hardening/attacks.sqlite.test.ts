import { attackSuite } from "./attacks.suite";

attackSuite("sqlite");
