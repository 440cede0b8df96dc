// Outside production, secrets that the environment does not provide are
// generated once into <data dir>/secrets.json (mode 0600, git-ignored), so a
// fresh clone runs with `npm start` and keeps its keys across restarts.
import "server-only";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SECRET_NAMES = ["AUTH_SECRET", "AUDIT_KEY", "ENCRYPTION_KEY", "RECEIPT_SIGNING_KEY"] as const;
export type SecretName = (typeof SECRET_NAMES)[number];
export type LocalSecrets = Record<SecretName, string>;

export function generateSecrets(): LocalSecrets {
  const { privateKey } = generateKeyPairSync("ed25519");
  return {
    AUTH_SECRET: randomBytes(32).toString("base64url"),
    AUDIT_KEY: randomBytes(32).toString("base64"),
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    RECEIPT_SIGNING_KEY: JSON.stringify(privateKey.export({ format: "jwk" })),
  };
}

export function loadOrCreateLocalSecrets(dataDir: string): LocalSecrets {
  const path = join(dataDir, "secrets.json");
  mkdirSync(dataDir, { recursive: true });
  // Written to a private temporary file, then hard-linked into place: link()
  // fails if the file exists, so processes starting at once agree on one set
  // of secrets and nobody reads a half-written file.
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, JSON.stringify(generateSecrets(), null, 2) + "\n", { mode: 0o600 });
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    unlinkSync(tmp);
  }
  const stored = JSON.parse(readFileSync(path, "utf8")) as Partial<LocalSecrets>;
  for (const n of SECRET_NAMES) {
    if (typeof stored[n] !== "string") throw new Error(`${path} lacks ${n}; delete the file to regenerate it`);
  }
  return stored as LocalSecrets;
}
