// What the redaction properties assert with: the visible text of an output,
// whether any run of a secret shows in it, and which classes must be caught
// without the words around them.

/** The visible text of a redacted output: tags removed, everything else kept. */
export const visible = (redacted: string) => redacted.replace(/\[redacted:[a-z0-9_]+\]/g, "\u0000");

/**
 * True when some run of `n` characters of `secret` shows in `text`. Runs of
 * fewer than three distinct characters ("AAAAAA", "000000": what a shrunk
 * counterexample is made of) would match hashes and markup, and are skipped.
 * A run of hex digits only counts at HEX_RUN digits: every record carries
 * hex digests and ids (an audit event about 130 such characters), where any
 * given six hex digits turn up by chance once in some 130,000 records, and
 * 90 cases of a hex-encoded or hex-keyed secret met one in a full run.
 */
export function showsPartOf(text: string, secret: string, n = 6): boolean {
  if (secret.length <= n) return text.includes(secret);
  for (let k = 0; k + n <= secret.length; k++) {
    const run = secret.slice(k, k + n);
    if (new Set(run).size < 3) continue;
    if (HEX.test(run)) {
      const longer = secret.slice(k, k + HEX_RUN);
      if (longer.length === HEX_RUN && HEX.test(longer) && text.includes(longer)) return true;
      continue;
    }
    if (text.includes(run)) return true;
  }
  return text.includes(secret);
}

/** Twelve hex digits turn up by chance once in some 10^14 places. */
const HEX_RUN = 12;
const HEX = /^[0-9a-f]+$/;

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
