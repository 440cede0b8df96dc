// Where a Web Push may go (docs/notifications.md "Web Push").
// A push endpoint is a URL a browser handed us and the server then POSTs
// to, so it is an outbound target like a callback URL and follows the same
// rule (lib/callbacks/callback-target.ts: never link-local or cloud
// metadata, loopback only where CALLBACK_ALLOW_LOOPBACK allows it, every
// spelling of an address, names resolved and checked), plus what every
// browser vendor's push service satisfies:
//   - https: only;
//   - port 443 (the https default) unless PUSH_ALLOW_ANY_PORT=1;
//   - never a private range, whatever CALLBACK_DENY_PRIVATE says: callbacks
//     go to an organisation's own services, often on its network, but a
//     push service is on the internet, and a user-given URL into the
//     internal network is how a server is made to reach it.
// Checked when a subscription is saved and again before each send.
import "server-only";
import {
  callbackTargetPolicy,
  checkCallbackUrlOnSave,
  checkCallbackUrlSyntax,
  resolveCallbackTarget,
  systemLookup,
  type CallbackTargetPolicy,
  type Lookup,
  type ResolvedAddress,
} from "../callbacks/callback-target";
import { env } from "../env";

export type PushTargetPolicy = CallbackTargetPolicy & { anyPort: boolean };

/** The deployment's rule for push endpoints: the callback policy with private ranges refused, and the port switch. */
export function pushTargetPolicy(): PushTargetPolicy {
  return { ...callbackTargetPolicy(), denyPrivate: true, anyPort: env().PUSH_ALLOW_ANY_PORT };
}

export const NOT_A_PUSH_ADDRESS = "is not an address push messages may go to";

/** What is wrong with the endpoint as written (no lookup), in words for the person saving it; null when nothing is. */
export function pushEndpointProblem(raw: string, policy: PushTargetPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be a URL";
  }
  if (url.protocol !== "https:") return "must be an https: URL";
  // The parser drops a port equal to the scheme's default ("https://x:443/" has port "").
  if (url.port !== "" && !policy.anyPort) return "must use port 443";
  return checkCallbackUrlSyntax(raw, policy).ok ? null : NOT_A_PUSH_ADDRESS;
}

/**
 * When a subscription is saved: the problem with its endpoint, looking the
 * host up as the callback rule does (a name that does not resolve now is
 * accepted: every send checks it again); null when it may be saved.
 */
export async function pushEndpointProblemOnSave(raw: string, policy: PushTargetPolicy, lookup: Lookup = systemLookup): Promise<string | null> {
  const problem = pushEndpointProblem(raw, policy);
  if (problem) return problem;
  return (await checkCallbackUrlOnSave(raw, policy, lookup)) ? NOT_A_PUSH_ADDRESS : null;
}

export type PushTargetCheck =
  | { ok: true; url: URL; hostname: string; addresses: ResolvedAddress[] }
  /** Refused by the rule: not sent, and not worth sending again. */
  | { ok: false; refused: true; reason: string }
  /** The host did not resolve (now): worth trying again later. */
  | { ok: false; refused: false; reason: string };

/**
 * Before each send: the endpoint checked again under the rule as it is
 * now, its host resolved once and every address checked; the sender
 * connects only to the addresses returned (no DNS rebinding).
 */
export async function resolvePushTarget(raw: string, policy: PushTargetPolicy, lookup: Lookup = systemLookup): Promise<PushTargetCheck> {
  const problem = pushEndpointProblem(raw, policy);
  if (problem) return { ok: false, refused: true, reason: `the endpoint ${problem}` };
  try {
    const check = await resolveCallbackTarget(raw, policy, lookup);
    if (!check.ok) return { ok: false, refused: true, reason: `the endpoint ${NOT_A_PUSH_ADDRESS}` };
    return check;
  } catch {
    return { ok: false, refused: false, reason: "the push service's host name did not resolve" };
  }
}
