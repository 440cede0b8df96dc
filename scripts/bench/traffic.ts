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
