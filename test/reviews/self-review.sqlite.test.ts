import { selfReviewSuite } from "./self-review.suite";

selfReviewSuite("sqlite");
