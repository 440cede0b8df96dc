import { attackSuite } from "./attacks.suite";

attackSuite("postgresql");
