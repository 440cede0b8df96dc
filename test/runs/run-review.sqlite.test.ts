import { runReviewSuite } from "./run-review.suite";

runReviewSuite("sqlite");
