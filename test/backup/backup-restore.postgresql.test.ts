import { PG_TEST_URL } from "../helpers/databases";
import { backupSuite } from "./backup-restore.suite";

backupSuite("postgresql", Boolean(PG_TEST_URL));
