// Identifiers: a short type prefix and 128 random bits in base32 (lower-case,
// no ambiguous padding), e.g. "apr_5xk3…". Unguessable, so ids leak nothing.
import { randomBytes } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export type IdPrefix =
  | "apr"
  | "arc"
  | "pk"
  | "usr"
  | "svc"
  | "rev"
  | "pol"
  | "evt"
  | "dlv"
  | "att"
  | "ses"
  | "idn"
  | "msg"
  | "ntr"
  | "ntf"
  | "nta"
  | "psb"
  | "slk"
  | "bat"
  | "sta"
  | "stv"
  | "grp"
  | "sct";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base32(randomBytes(16))}`;
}

/** A random secret token with a recognisable prefix, e.g. "cs_live_…". */
export function newToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString("base64url")}`;
}
