import { PG_TEST_URL } from "../helpers/databases";
import { reviewSuite } from "./record-review.suite";

reviewSuite("postgresql", Boolean(PG_TEST_URL));
