import { backupSuite } from "./backup-restore.suite";

backupSuite("sqlite");
