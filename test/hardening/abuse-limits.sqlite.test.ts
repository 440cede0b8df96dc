import { abuseLimitsSuite } from "./abuse-limits.suite";

abuseLimitsSuite("sqlite");
