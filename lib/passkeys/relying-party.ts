// The WebAuthn relying party (docs/passkeys.md): its id and origin come from
// APP_URL, the address reviewers open, so a passkey made for this console
// answers no other site's challenge.
import "server-only";
import { env } from "../env";

export const RP_NAME = "Countersign";
/** How long a registration challenge or a vote nonce may be used. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;

export function relyingParty(): { rpID: string; origin: string; rpName: string } {
  const url = new URL(env().appUrl);
  return { rpID: url.hostname, origin: url.origin, rpName: RP_NAME };
}
