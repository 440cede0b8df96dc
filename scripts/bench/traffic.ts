// Realistic agent traffic for the bench: a few services with their own tools,
// arguments of log-uniform size that carry secrets for the redactor to find
// (emails, card numbers, API keys, passwords), and approval.requested events.
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { luhnValid } from "@/lib/redaction/checksums";

// A few agent services, each with its own tools (the realistic mix).
export const SERVICES: Record<string, string[]> = {
  "billing-agent": ["payments.refund", "payments.charge", "invoices.send", "subscriptions.cancel"],
  "mail-agent": ["mail.send", "mail.forward", "calendar.invite"],
  "infra-agent": ["db.migrate", "k8s.scale", "dns.update", "secrets.rotate", "files.upload"],
};
export const EFFECTS = ["read", "write", "destructive"] as const;

export const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!;

/** A Luhn-valid 16-digit card number (Visa test range), spaced as people type it. */
function cardNumber(): string {
  const body = [4, ...Array.from({ length: 14 }, () => randomInt(10))].join("");
  // The one check digit that passes the redactor's own Luhn check.
  const check = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].find((d) => luhnValid(`${body}${d}`))!;
  return `${body}${check}`.replace(/(\d{4})(?=\d)/g, "$1 ");
}

const email = () =>
  `${pick(["ana", "bo", "chen", "dee", "eli", "fatima", "gus"])}.${randomBytes(3).toString("hex")}@${pick(["example.com", "corp.example", "mail.test"])}`;

/** Target size of the arguments' JSON: log-uniform between 100 B and 64 KiB. */
function targetSize(): number {
  const min = Math.log(100);
  const max = Math.log(64 * 1024);
  return Math.round(Math.exp(min + Math.random() * (max - min)));
}

const WORDS =
  "please refund the customer for order invoice shipment delayed account review quarterly report attached see notes below thanks regards".split(" ");
function prose(bytes: number): string {
  let s = "";
  while (s.length < bytes) s += pick(WORDS) + (randomInt(12) === 0 ? ". " : " ");
  return s.slice(0, Math.max(0, bytes));
}

/** Arguments for a tool, with secrets to redact, padded to about `size` bytes of JSON. */
function argumentsFor(tool: string, size: number): Record<string, unknown> {
  const base: Record<string, unknown> = (() => {
    switch (tool.split(".")[0]) {
      case "payments":
      case "invoices":
      case "subscriptions":
        return { customer: email(), amount: randomInt(1, 500_000) / 100, currency: pick(["EUR", "USD", "GBP"]), card: cardNumber() };
      case "mail":
      case "calendar":
        return { to: [email(), email()], subject: prose(30), body: "" };
      default:
        return { target: `prod-${randomBytes(2).toString("hex")}`, api_key: `sk_live_${randomBytes(18).toString("base64url")}`, owner: email() };
    }
  })();
  if (size < 100) return base;
  // Larger payloads: nested records with more secrets (emails, tokens, cards), then prose.
  if (size > 2000) {
    const rows: unknown[] = [];
    const rowsBudget = Math.floor(size / 3);
    let used = 0;
    while (used < rowsBudget) {
      const row = {
        id: randomUUID(),
        contact: email(),
        note: prose(randomInt(20, 200)),
        ...(randomInt(4) === 0 ? { password: randomBytes(9).toString("base64url") } : {}),
        ...(randomInt(6) === 0 ? { card: cardNumber() } : {}),
      };
      used += JSON.stringify(row).length + 1;
      rows.push(row);
    }
    base.records = rows;
  }
  const current = JSON.stringify(base).length;
  const pad = size - current - 12;
  if (pad > 0) base.notes = prose(pad);
  return base;
}

/** An approval.requested event as the service's agent would send it. */
export function realisticEvent(slug: string) {
  const tool = pick(SERVICES[slug]!);
  const args = argumentsFor(tool, targetSize());
  return {
    type: "approval.requested" as const,
    data: {
      run_id: `run_${randomUUID()}`,
      call_id: `call_${randomUUID()}`,
      tool,
      arguments: args,
      requested_by: `agent-${slug}@example.com`,
      effects: pick(EFFECTS),
      summary: `${tool} for ${email()}: ${prose(randomInt(10, 160))}`,
      environment: pick(["production", "staging"]),
    },
  };
}

// Look-alike text (the run-page scenario, scripts/bench/render.mjs): words
// whose letters are partly Cyrillic look-alikes of Latin ones, with zero-width
// characters inside words and runs wrapped in direction overrides and
// isolates, so every value is flagged and escaped when it is shown.
const CYRILLIC_LOOKALIKE: Record<string, string> = { a: "а", c: "с", e: "е", i: "і", o: "о", p: "р", x: "х", y: "у" };
const HIDDEN = ["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF"];

function lookalikeWord(): string {
  let w = pick(WORDS);
  if (randomInt(3) > 0) w = w.replace(/[aceiopxy]/, (ch) => CYRILLIC_LOOKALIKE[ch]!);
  if (randomInt(5) === 0) {
    const at = randomInt(1, Math.max(w.length, 2));
    w = w.slice(0, at) + pick(HIDDEN) + w.slice(at);
  }
  return w;
}

/** About `chars` characters of look-alike prose with hidden and direction-changing characters. */
export function lookalikeText(chars: number): string {
  let s = "";
  while (s.length < chars) {
    const r = randomInt(20);
    if (r === 0) s += `\u202E${lookalikeWord()} ${lookalikeWord()}\u202C `;
    else if (r === 1) s += `\u2067${lookalikeWord()}\u2069 `;
    else s += `${lookalikeWord()} `;
  }
  return s.slice(0, chars);
}

/**
 * Arguments of about `bytes` bytes of JSON (UTF-8): records with a look-alike
 * label and memo each, then one long look-alike note that pads to the size.
 */
export function lookalikeArguments(bytes: number): Record<string, unknown> {
  const args: Record<string, unknown> = { title: lookalikeText(60), records: [] as unknown[] };
  const records = args.records as unknown[];
  const size = () => Buffer.byteLength(JSON.stringify(args));
  for (let i = 0; size() < bytes * 0.8 && i < 10_000; i++)
    records.push({ id: i, label: lookalikeText(40), memo: lookalikeText(randomInt(200, 1200)) });
  const left = bytes - size() - 12;
  // Each look-alike character is two UTF-8 bytes, a hidden one three: about 1.3 bytes a character.
  if (left > 0) args.note = lookalikeText(Math.floor(left / 1.3));
  return args;
}
