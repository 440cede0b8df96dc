import { secretsNeverStoredSuite } from "./secrets-never-stored.suite";

secretsNeverStoredSuite("postgresql");
