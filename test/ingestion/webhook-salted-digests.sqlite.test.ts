import { saltedDigestSuite } from "./webhook-salted-digests.suite";

saltedDigestSuite("sqlite");
