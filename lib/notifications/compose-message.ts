// What a notification says. Pure. It names the call (tool, service,
// effects, environment, expiry) and links to the request; the agent's
// summary is quoted as the agent's words, since an agent writes it. Argument
// values, redacted or not, are never part of a message: the link is where a
// reviewer sees them, signed in.
export type MessageFacts = {
  kind: "needs_review";
  tool: string;
  service: string;
  effects: string;
  environment: string | null;
  expiresAt: Date;
  reviewUrl: string;
  /** The stored (redacted) summary. */
  summary: string | null;
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

export function composeMessage(f: MessageFacts): ComposedMessage {
  const where = f.environment ? `${f.service} (${f.environment})` : f.service;
  const subject = `Review needed: ${oneLine(f.tool, 120)} from ${oneLine(where, 120)}`;
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
    "A tool call is waiting for your review in Countersign.",
    "",
    ...facts.map(([k, v]) => `${k}: ${oneLine(v, 200)}`),
    ...(summary ? ["", `The agent's summary (written by the agent, not checked): "${summary}"`] : []),
    "",
    `Review it: ${f.reviewUrl}`,
    "",
    "You get this because you may decide this request. The arguments are shown only on the page.",
  ].join("\n");
  const html = [
    "<p>A tool call is waiting for your review in Countersign.</p>",
    "<table>",
    ...facts.map(([k, v]) => `<tr><th align="left">${escapeHtml(k)}</th><td>${escapeHtml(oneLine(v, 200))}</td></tr>`),
    "</table>",
    ...(summary ? [`<p>The agent's summary <em>(written by the agent, not checked)</em>: <q>${escapeHtml(summary)}</q></p>`] : []),
    `<p><a href="${escapeHtml(f.reviewUrl)}">Review it in Countersign</a></p>`,
    "<p>You get this because you may decide this request. The arguments are shown only on the page.</p>",
  ].join("\n");
  return { subject, text, html };
}
