import { PG_TEST_URL } from "../helpers/databases";
import { reviewPaceSuite } from "./review-pace.suite";

reviewPaceSuite("postgresql", Boolean(PG_TEST_URL));
