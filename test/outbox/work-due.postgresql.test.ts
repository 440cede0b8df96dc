import { PG_TEST_URL } from "../helpers/databases";
import { workDueSuite } from "./work-due.suite";

workDueSuite("postgresql", Boolean(PG_TEST_URL));
