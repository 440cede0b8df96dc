// What a notification says. Pure. It names the call (tool, service,
// effects, environment, expiry) and links to the request; the agent's
// summary is quoted as the agent's words, since an agent writes it. Argument
// values, redacted or not, are never part of a message: the link is where a
// reviewer sees them, signed in.
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
};

export type ComposedMessage = { subject: string; text: string; html: string };

const MAX_SUMMARY = 300;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One line, bounded: a summary must not grow a message or fake extra lines in it. */
function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
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
  const where = f.environment ? `${f.service} (${f.environment})` : f.service;
  const unreachable = f.kind === "quorum_unreachable";
  const subject = `${SUBJECT[f.kind]}: ${oneLine(f.tool, 120)} from ${oneLine(where, 120)}`;
  const lead = leadOf(f);
  const why = unreachable
    ? "You get this because you are a Countersign admin."
    : "You get this because you may decide this request. The arguments are shown only on the page.";
  const expires = f.expiresAt.toISOString().replace(/\.\d{3}Z$/, "Z");
  const facts: Array<[string, string]> = [
    ["Tool", f.tool],
    ["Service", f.service],
    ["Effects", f.effects],
    ...(f.environment ? ([["Environment", f.environment]] as Array<[string, string]>) : []),
    ["Expires", expires],
  ];
  const summary = f.summary ? oneLine(f.summary, MAX_SUMMARY) : null;
  const text = [
    lead,
    "",
    ...facts.map(([k, v]) => `${k}: ${oneLine(v, 200)}`),
    ...(summary ? ["", `The agent's summary (written by the agent, not checked): "${summary}"`] : []),
    "",
    `${unreachable ? "The request" : "Review it"}: ${f.reviewUrl}`,
    "",
    why,
  ].join("\n");
  const html = [
    `<p>${escapeHtml(lead)}</p>`,
    "<table>",
    ...facts.map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(oneLine(v, 200))}</td></tr>`),
    "</table>",
    ...(summary ? [`<p>The agent's summary <em>(written by the agent, not checked)</em>: <q>${escapeHtml(summary)}</q></p>`] : []),
    `<p><a href="${escapeHtml(f.reviewUrl)}">${unreachable ? "Open the request" : "Review it"} in Countersign</a></p>`,
    `<p>${escapeHtml(why)}</p>`,
  ].join("\n");
  return { subject, text, html };
}

/**
 * A push notification: what fits a phone's lock screen, so shorter than an
 * email (the summary cut to one short line, marked as the agent's words) and,
 * like every message, nothing from the arguments.
 */
export type PushMessage = { title: string; body: string; url: string; tag: string };

export function composePush(f: MessageFacts & { approvalId: string }): PushMessage {
  const where = f.environment ? `${f.service} (${f.environment})` : f.service;
  const expires = f.expiresAt.toISOString().slice(11, 16);
  return {
    title: `${SUBJECT[f.kind]}: ${oneLine(f.tool, 80)}`,
    body: [
      `${oneLine(where, 80)} · ${oneLine(f.effects, 40)} · expires ${expires} UTC`,
      ...(f.summary ? [`Agent says (unchecked): "${oneLine(f.summary, 120)}"`] : []),
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
