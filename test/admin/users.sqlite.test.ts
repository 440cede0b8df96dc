import { usersSuite } from "./users.suite";

usersSuite("sqlite");
