import { PG_TEST_URL } from "../helpers/databases";
import { unitOfWorkSuite } from "./unit-of-work.suite";

unitOfWorkSuite("postgresql", Boolean(PG_TEST_URL));
