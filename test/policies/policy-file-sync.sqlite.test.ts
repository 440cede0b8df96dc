import { policyFileSyncSuite } from "./policy-file-sync.suite";

policyFileSyncSuite("sqlite");
