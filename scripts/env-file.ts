// `npm run --silent env-file > .env`: a new env file for a production
// deployment (compose.yaml reads `.env`; docs/operations.md, "Container
// image"): the four required secrets and a Web Push key pair, each freshly
// generated, a password for compose's PostgreSQL, and APP_URL to edit.
// Never write it over a file in use: data encrypted or signed under the old
// keys cannot be read or verified with new ones.
import { randomBytes } from "node:crypto";
import { generateSecrets } from "@/lib/local-secrets";

const values: Record<string, string> = {
  APP_URL: "http://localhost:3000",
  ...generateSecrets(),
  POSTGRES_PASSWORD: randomBytes(24).toString("hex"),
};
process.stdout.write(
  Object.entries(values)
    .map(([name, value]) => `${name}=${value}\n`)
    .join(""),
);
