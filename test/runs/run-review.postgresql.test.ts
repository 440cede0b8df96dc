import { PG_TEST_URL } from "../helpers/databases";
import { runReviewSuite } from "./run-review.suite";

runReviewSuite("postgresql", Boolean(PG_TEST_URL));
