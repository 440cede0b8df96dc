import { PG_TEST_URL } from "../helpers/databases";
import { policyFileSyncSuite } from "./policy-file-sync.suite";

policyFileSyncSuite("postgresql", Boolean(PG_TEST_URL));
