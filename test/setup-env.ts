// Every test process gets its own data directory (local secrets are generated
// there) unless a test sets one itself.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.COUNTERSIGN_DATA_DIR ??= mkdtempSync(join(tmpdir(), "cs-test-"));
