import { PG_TEST_URL } from "../helpers/databases";
import { leaseSuite } from "./lease.suite";

leaseSuite("postgresql", Boolean(PG_TEST_URL));
