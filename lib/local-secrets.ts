// Outside production, secrets that the environment does not provide are
// generated once into <data dir>/secrets.json (mode 0600, git-ignored), so a
// fresh clone runs with `npm start` and keeps its keys across restarts.
// The VAPID key pair (Web Push) is optional in production, so it is kept
// apart from the required names; a file from before it existed gets one added.
import "server-only";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SECRET_NAMES = ["AUTH_SECRET", "AUDIT_KEY", "ENCRYPTION_KEY", "RECEIPT_SIGNING_KEY"] as const;
export type SecretName = (typeof SECRET_NAMES)[number];
export const VAPID_NAMES = ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"] as const;
export type VapidName = (typeof VAPID_NAMES)[number];
export type LocalSecrets = Record<SecretName | VapidName, string>;

/** A P-256 key pair in the form Web Push uses: the 65-byte uncompressed public point and the 32-byte private scalar, base64url. */
export function generateVapidKeys(): Record<VapidName, string> {
  const jwk = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, "base64url"), Buffer.from(jwk.y!, "base64url")]);
  return { VAPID_PUBLIC_KEY: point.toString("base64url"), VAPID_PRIVATE_KEY: jwk.d! };
}

export function generateSecrets(): LocalSecrets {
  const { privateKey } = generateKeyPairSync("ed25519");
  return {
    AUTH_SECRET: randomBytes(32).toString("base64url"),
    AUDIT_KEY: randomBytes(32).toString("base64"),
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    RECEIPT_SIGNING_KEY: JSON.stringify(privateKey.export({ format: "jwk" })),
    ...generateVapidKeys(),
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
  let stored = JSON.parse(readFileSync(path, "utf8")) as Partial<LocalSecrets>;
  for (const n of SECRET_NAMES) {
    if (typeof stored[n] !== "string") throw new Error(`${path} lacks ${n}; delete the file to regenerate it`);
  }
  if (VAPID_NAMES.some((n) => typeof stored[n] !== "string")) {
    // A file written before Web Push: add a key pair, replacing the file whole
    // (rename), then read back what is there, so concurrent starts converge.
    writeFileSync(tmp, JSON.stringify({ ...stored, ...generateVapidKeys() }, null, 2) + "\n", { mode: 0o600 });
    renameSync(tmp, path);
    stored = JSON.parse(readFileSync(path, "utf8")) as Partial<LocalSecrets>;
  }
  return stored as LocalSecrets;
}
