// A software WebAuthn authenticator for the tests: a P-256 key made with
// node:crypto, authenticatorData and clientDataJSON built as the WebAuthn
// specification lays them out, and ES256 signatures. It is a test client (the
// server under test verifies what it makes with @simplewebauthn/server); the
// browser tests use Chromium's virtual authenticator instead.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

const b64u = (b: Uint8Array) => Buffer.from(b).toString("base64url");

/** CBOR for what COSE keys and attestation objects need: small ints, negative ints, bytes, text, maps. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === "string") {
    const t = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, t.length), t]);
  }
  if (value instanceof Map) {
    const parts: Buffer[] = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new Error("unsupported CBOR value");
}

export type SoftAuthenticator = ReturnType<typeof softAuthenticator>;

export function softAuthenticator(rp: { rpID: string; origin: string }) {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const credentialId = randomBytes(16);
  const cose = cbor(
    new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]),
  );
  const rpIdHash = createHash("sha256").update(rp.rpID).digest();
  let counter = 0;
  const counterBytes = () => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(counter);
    return b;
  };

  return {
    credentialId: b64u(credentialId),
    publicKeyCose: b64u(cose),
    publicJwk: { kty: "EC", crv: "P-256", x: jwk.x!, y: jwk.y! },
    privateKey: privateKey as KeyObject,

    /** navigator.credentials.create()'s answer as @simplewebauthn/browser sends it (attestation "none"). */
    register(challenge: string) {
      const clientData = Buffer.from(JSON.stringify({ type: "webauthn.create", challenge, origin: rp.origin, crossOrigin: false }));
      const credLen = Buffer.from([credentialId.length >> 8, credentialId.length & 255]);
      // Flags: UP (0x01) | UV (0x04) | AT (0x40).
      const authData = Buffer.concat([rpIdHash, Buffer.from([0x45]), counterBytes(), Buffer.alloc(16), credLen, credentialId, cose]);
      const attestationObject = cbor(
        new Map<string, unknown>([
          ["fmt", "none"],
          ["attStmt", new Map()],
          ["authData", authData],
        ]),
      );
      return {
        id: b64u(credentialId),
        rawId: b64u(credentialId),
        type: "public-key",
        response: { clientDataJSON: b64u(clientData), attestationObject: b64u(attestationObject), transports: ["internal"] },
        clientExtensionResults: {},
      };
    },

    /** navigator.credentials.get()'s answer over `challenge` (base64url); flags UP and UV unless told otherwise. */
    assert(challenge: string, opts: { flags?: number; origin?: string } = {}) {
      counter++;
      const clientData = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin: opts.origin ?? rp.origin, crossOrigin: false }));
      const authData = Buffer.concat([rpIdHash, Buffer.from([opts.flags ?? 0x05]), counterBytes()]);
      const signature = sign("sha256", Buffer.concat([authData, createHash("sha256").update(clientData).digest()]), privateKey);
      return {
        id: b64u(credentialId),
        rawId: b64u(credentialId),
        type: "public-key",
        response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature) },
        clientExtensionResults: {},
      };
    },
  };
}
