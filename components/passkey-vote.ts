// The browser half of a passkey vote (docs/passkeys.md): ask the server for a
// nonce and the WebAuthn options whose challenge binds this vote, sign with
// the reviewer's passkey, send the vote with its assertion. The server checks
// everything again; this only carries the pieces.
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";

export type PasskeyVoteResult = { ok: true; status: string; next?: string } | { ok: false; message: string };

async function post(url: string, body: unknown): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  let parsed: Record<string, unknown> = {};
  try {
    parsed = (await r.json()) as Record<string, unknown>;
  } catch {
    // not JSON: the message below says so
  }
  return { ok: r.ok, body: parsed };
}

const failure = (body: Record<string, unknown>, fallback: string): PasskeyVoteResult => ({
  ok: false,
  message: typeof body.message === "string" ? body.message : typeof body.error === "string" ? `Refused: ${body.error}.` : fallback,
});

export async function passkeyVote(approvalId: string, decision: "approve" | "deny", reason: string): Promise<PasskeyVoteResult> {
  const base = `/api/approvals/${encodeURIComponent(approvalId)}`;
  const vote = { decision, reason: reason.trim() };
  try {
    const begun = await post(`${base}/passkey-challenge`, vote);
    if (!begun.ok) return failure(begun.body, "The vote could not be started. Try again.");
    const { nonce, options } = begun.body as { nonce: string; options: PublicKeyCredentialRequestOptionsJSON };
    let response;
    try {
      response = await startAuthentication({ optionsJSON: options });
    } catch {
      return { ok: false, message: "Your passkey did not sign the vote (cancelled, or no passkey of yours here). Nothing was recorded." };
    }
    const done = await post(`${base}/passkey-vote`, { ...vote, passkey: { nonce, response } });
    if (!done.ok) return failure(done.body, "The vote was refused. Nothing was recorded.");
    return { ok: true, status: String(done.body.status ?? "") };
  } catch {
    return { ok: false, message: "The server could not be reached. Reload the page to see whether your vote was recorded." };
  }
}
