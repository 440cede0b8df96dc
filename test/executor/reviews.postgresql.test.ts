import { reviewsSuite } from "./reviews.suite";

reviewsSuite("postgresql");
