import { PG_TEST_URL } from "../helpers/databases";
import { revisionsSuite } from "./revisions.suite";

revisionsSuite("postgresql", Boolean(PG_TEST_URL));
