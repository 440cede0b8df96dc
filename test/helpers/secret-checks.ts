// What the redaction properties assert with: the visible text of an output,
// whether any run of a secret shows in it, and which classes must be caught
// without the words around them.

/** The visible text of a redacted output: tags removed, everything else kept. */
export const visible = (redacted: string) => redacted.replace(/\[redacted:[a-z0-9_]+\]/g, "\u0000");

/**
 * True when some run of `n` characters of `secret` shows in `text`. Runs of
 * fewer than three distinct characters ("AAAAAA", "000000": what a shrunk
 * counterexample is made of) would match hashes and markup, and are skipped.
 */
export function showsPartOf(text: string, secret: string, n = 6): boolean {
  if (secret.length <= n) return text.includes(secret);
  for (let k = 0; k + n <= secret.length; k++) {
    const run = secret.slice(k, k + n);
    if (new Set(run).size >= 3 && text.includes(run)) return true;
  }
  return text.includes(secret);
}

/** Classes whose secret is recognisable without its surrounding words (a JWT, an `sk_live_` key, a Luhn-valid card, a seed phrase…). */
export const SELF_EVIDENT = new Set([
  "jwt",
  "google_api_key",
  "stripe",
  "slack_webhook",
  "slack_token",
  "github_pat",
  "github_token",
  "npm",
  "sendgrid",
  "twilio_sid",
  "card_number",
  "iban",
  "email",
  "seed_phrase",
]);
