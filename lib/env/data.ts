// The database and the instance's data directory.
import { z } from "zod";
import { doc } from "./groups";

export const dataVariables = {
  DATABASE_URL: z
    .string()
    .min(1)
    .default("file:./data/countersign.db")
    .meta(doc("data", "A SQLite file (`file:…`), or a `postgresql://` URL for PostgreSQL, which several instances can share.")),
  COUNTERSIGN_DATA_DIR: z
    .string()
    .min(1)
    .default("./data")
    .meta(doc("data", "Where this instance keeps its local files: the secrets generated outside production and the demo's credentials.")),
};
