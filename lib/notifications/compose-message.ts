// What a notification says. Pure. It names the call (tool, service,
// effects, environment, expiry) and links to the request; the agent's
// summary is quoted as the agent's words, since an agent writes it. Argument
// values, redacted or not, are never part of a message: the link is where a
// reviewer sees them, signed in.
//
// What a reviewer sees is what runs (docs/security.md): every value a service
// wrote is shown as the page shows it (lib/display: hidden characters as
// escapes, look-alike letters marked, the per-value flag), in HTML escaped for
// HTML, and a request with any finding carries the page's own warning at the
// top (its locations in the arguments named only as "the arguments").
import { clipText, DISPLAY_WARNING_LEGEND, DISPLAY_WARNING_TITLE, plainValue, warningLines, withoutArgumentPaths } from "../display/channel-text";
import { flagReason, reveal, type RevealMode } from "../display/reveal";
import type { Warnings } from "../display/scan-findings";

export type MessageKind = "needs_review" | "quorum_unreachable" | "reminder" | "escalated";

export type MessageFacts = {
  kind: MessageKind;
  tool: string;
  service: string;
  effects: string;
  environment: string | null;
  expiresAt: Date;
  reviewUrl: string;
  /** The stored (redacted) summary. */
  summary: string | null;
  requiredRoles: string[];
  quorum: number;
  /** For "escalated": the roles the escalation added. */
  escalatedToRoles?: string[];
  /** The request page's warning, as requestWarnings() (lib/display/request-display.ts) finds it for the whole request. */
  displayWarnings: Warnings;
};

export type ComposedMessage = { subject: string; text: string; html: string };

const MAX_SUMMARY = 300;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One line, bounded: a summary must not grow a message or fake extra lines in it. */
function oneLine(s: string, max: number): string {
  return clipText(s.replace(/\s+/g, " ").trim(), max);
}

/** A value a service wrote, as text: revealed, on one bounded line. */
const plain = (s: string, max: number, mode: RevealMode = {}) => oneLine(plainValue(s, mode).text, max);

/** The same with the page's flag after it, when it has one; `quote` wraps the value alone (the flag is Countersign's words). */
function flagged(s: string, max: number, mode: RevealMode = {}, quote = ""): string {
  const v = plainValue(s, mode);
  return `${quote}${oneLine(v.text, max)}${quote}${v.flag ? ` ⚠ ${v.flag}` : ""}`;
}

const ESCAPE_STYLE = "background:#ffe4e6;color:#881337;font-family:monospace;outline:1px solid #fda4af";
const MARK_STYLE = "background:#fef08a;text-decoration:underline wavy #dc2626";

/** A value a service wrote, in HTML as the page shows it: escapes highlighted, look-alike letters marked, isolated, flagged. */
function htmlValue(s: string, max: number, mode: RevealMode = {}, quote = false): string {
  const r = reveal(s, mode);
  let left = max;
  let out = "";
  for (const seg of r.segments) {
    if (left <= 0) {
      out += "…";
      break;
    }
    const raw = "t" in seg ? seg.t.replace(/\s+/g, " ") : "e" in seg ? seg.e : seg.m;
    const text = raw.length > left ? clipText(raw, left) : raw;
    left -= raw.length;
    out +=
      "t" in seg
        ? escapeHtml(text)
        : `<${"e" in seg ? "span" : "mark"} style="${"e" in seg ? ESCAPE_STYLE : MARK_STYLE}" title="${escapeHtml(seg.title)}">${escapeHtml(text)}</${"e" in seg ? "span" : "mark"}>`;
  }
  const flag = flagReason(r.findings);
  const value = `<bdi dir="ltr">${out.trim()}</bdi>`;
  return `${quote ? `<q>${value}</q>` : value}${flag ? ` <strong style="color:#991b1b">⚠ ${escapeHtml(flag)}</strong>` : ""}`;
}

function warningHtml(w: Warnings): string[] {
  if (w.total === 0) return [];
  const more = w.total - w.items.length;
  return [
    '<div role="alert" style="border:2px solid #b91c1c;background:#fef2f2;color:#450a0a;padding:12px;margin-bottom:12px">',
    `<p style="margin:0;font-weight:bold">⚠ ${escapeHtml(DISPLAY_WARNING_TITLE)}</p>`,
    `<p style="margin:4px 0">${escapeHtml(DISPLAY_WARNING_LEGEND)}</p>`,
    "<ul>",
    ...w.items.map((i) => `<li><bdi dir="ltr" style="font-family:monospace">${escapeHtml(i.where)}</bdi>: ${escapeHtml(i.what)}</li>`),
    ...(more > 0 ? [`<li>and ${more.toLocaleString("en-US")} more</li>`] : []),
    "</ul>",
    "</div>",
  ];
}

const SUBJECT: Record<MessageKind, string> = {
  needs_review: "Review needed",
  quorum_unreachable: "Nobody can approve",
  reminder: "Reminder: review needed",
  escalated: "Escalated: review needed",
};

function leadOf(f: MessageFacts): string {
  const roles = f.requiredRoles.join(", ");
  switch (f.kind) {
    case "quorum_unreachable":
      return `A request needs ${f.quorum} approval${f.quorum === 1 ? "" : "s"} from people with the role ${roles}, but fewer people than that could approve it (the requester never can). It can only be denied or expire. Grant the role to more people, or change the policy.`;
    case "reminder":
      return "A tool call is still waiting for your review in Countersign, and nobody has decided it yet.";
    case "escalated":
      return `Nobody decided this tool call in time, so its policy escalated it: people with the role ${(f.escalatedToRoles ?? []).join(", ")} may now decide it too. It is waiting for your review in Countersign.`;
    default:
      return "A tool call is waiting for your review in Countersign.";
  }
}

export function composeMessage(f: MessageFacts): ComposedMessage {
  const warnings = withoutArgumentPaths(f.displayWarnings);
  const where = f.environment ? `${plain(f.service, 120)} (${plain(f.environment, 120)})` : plain(f.service, 120);
  const unreachable = f.kind === "quorum_unreachable";
  const subject = `${warnings.total > 0 ? "⚠ Check carefully: " : ""}${SUBJECT[f.kind]}: ${plain(f.tool, 120)} from ${oneLine(where, 250)}`;
  const lead = leadOf(f);
  const why = unreachable
    ? "You get this because you are a Countersign admin."
    : "You get this because you may decide this request. The arguments are shown only on the page.";
  const expires = f.expiresAt.toISOString().replace(/\.\d{3}Z$/, "Z");
  // [label, the value a service wrote (revealed) or one of Countersign's own]
  const facts: Array<[string, string, boolean]> = [
    ["Tool", f.tool, true],
    ["Service", f.service, true],
    ["Effects", f.effects, false],
    ...(f.environment ? ([["Environment", f.environment, true]] as Array<[string, string, boolean]>) : []),
    ["Expires", expires, false],
  ];
  const summaryMode = { multiline: true };
  const text = [
    ...warningLines(warnings),
    ...(warnings.total > 0 ? [""] : []),
    lead,
    "",
    ...facts.map(([k, v, wrote]) => `${k}: ${wrote ? flagged(v, 200) : oneLine(v, 200)}`),
    ...(f.summary ? ["", `The agent's summary (written by the agent, not checked): ${flagged(f.summary, MAX_SUMMARY, summaryMode, '"')}`] : []),
    "",
    `${unreachable ? "The request" : "Review it"}: ${f.reviewUrl}`,
    "",
    why,
  ].join("\n");
  const html = [
    ...warningHtml(warnings),
    `<p>${escapeHtml(lead)}</p>`,
    "<table>",
    ...facts.map(
      ([k, v, wrote]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${wrote ? htmlValue(v, 200) : escapeHtml(oneLine(v, 200))}</td></tr>`,
    ),
    "</table>",
    ...(f.summary
      ? [`<p>The agent's summary <em>(written by the agent, not checked)</em>: ${htmlValue(f.summary, MAX_SUMMARY, summaryMode, true)}</p>`]
      : []),
    `<p><a href="${escapeHtml(f.reviewUrl)}">${unreachable ? "Open the request" : "Review it"} in Countersign</a></p>`,
    `<p>${escapeHtml(why)}</p>`,
  ].join("\n");
  return { subject, text, html };
}

/**
 * A push notification: what fits a phone's lock screen, so shorter than an
 * email (the summary cut to one short line, marked as the agent's words) and,
 * like every message, nothing from the arguments. A warning, when the request
 * has one, is its first line.
 */
export type PushMessage = { title: string; body: string; url: string; tag: string };

export function composePush(f: MessageFacts & { approvalId: string }): PushMessage {
  const where = f.environment ? `${plain(f.service, 80)} (${plain(f.environment, 80)})` : plain(f.service, 80);
  const expires = f.expiresAt.toISOString().slice(11, 16);
  return {
    title: `${SUBJECT[f.kind]}: ${plain(f.tool, 80)}`,
    body: [
      ...(f.displayWarnings.total > 0 ? ["⚠ Check carefully: hidden, direction-changing or look-alike characters (shown as ⟨…⟩)"] : []),
      `${oneLine(where, 80)} · ${oneLine(f.effects, 40)} · expires ${expires} UTC`,
      ...(f.summary ? [`Agent says (unchecked): "${plain(f.summary, 120, { multiline: true })}"`] : []),
    ].join("\n"),
    url: f.reviewUrl,
    // A reminder or escalation replaces the earlier notice about the same request.
    tag: `approval-${f.approvalId}`,
  };
}

/** The message a user sends themselves from /settings to try their channels. */
export function composeTestMessage(settingsUrl: string): ComposedMessage & { push: PushMessage } {
  const lead = "This is a test message from Countersign. Your notifications reach you on this channel.";
  const why = "You get this because you asked for a test message on your settings page.";
  return {
    subject: "Countersign test message",
    text: [lead, "", `Your settings: ${settingsUrl}`, "", why].join("\n"),
    html: [`<p>${escapeHtml(lead)}</p>`, `<p><a href="${escapeHtml(settingsUrl)}">Your settings</a></p>`, `<p>${escapeHtml(why)}</p>`].join("\n"),
    push: { title: "Countersign test message", body: "Notifications reach you in this browser.", url: settingsUrl, tag: "countersign-test" },
  };
}
