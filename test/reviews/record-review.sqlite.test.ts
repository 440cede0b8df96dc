import { reviewSuite } from "./record-review.suite";

reviewSuite("sqlite");
