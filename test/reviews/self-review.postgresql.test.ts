import { PG_TEST_URL } from "../helpers/databases";
import { selfReviewSuite } from "./self-review.suite";

selfReviewSuite("postgresql", Boolean(PG_TEST_URL));
