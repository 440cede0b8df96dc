import { retentionSuite } from "./retention.suite";

retentionSuite("sqlite");
