import { reviewsSuite } from "./reviews.suite";

reviewsSuite("sqlite");
