// What a Slack message about a request says, in Block Kit. Pure. The same
// facts as the review page, shortened for a chat: tool, service,
// environment, effects, expiry, the digest (short, the full value behind a
// button), the agent's summary marked as the agent's words, and the
// redacted arguments cut to a few lines with a link for the rest. Slack
// shows `text` where blocks cannot be shown (notifications, old clients).
// Every string that came from an agent is escaped: Slack's mrkdwn would
// otherwise turn `<https://evil|Open>` into a link, or `<!channel>` into a ping.

export type SlackRequestFacts = {
  approvalId: string;
  tool: string;
  service: string;
  effects: string;
  environment: string | null;
  expiresAt: Date;
  argsDigest: string;
  /**
   * Whether everyone who reads the message may see the digest. A channel's
   * members need not be the request's reviewers, and the digest of an
   * unsalted request with redacted values is a guessing oracle for them
   * (lib/reviews/visibility.ts): then the message leaves it out, and Full
   * digest shows it only to those the rule allows.
   */
  digestShown: boolean;
  summary: string | null;
  /** The stored redacted arguments, as JSON text. */
  redactedArgs: string;
  reviewUrl: string;
  quorum: number;
  approveCount: number;
};

export type SlackOutcome = {
  status: "approved" | "denied" | "expired" | "cancelled" | "revised";
  decidedBy: string[];
  /** The denial's reason, when a reviewer gave one. */
  reason: string | null;
  decidedAt: Date | null;
};

export type Block = Record<string, unknown> & { type: string };
export type SlackMessage = { text: string; blocks: Block[] };

/** Action ids the interactions endpoint reads. */
export const ACTION = { approve: "countersign_approve", deny: "countersign_deny", digest: "countersign_digest", open: "countersign_open" } as const;
export const DENY_MODAL = "countersign_deny";
export const ARGS_PREVIEW_CHARS = 600;
const SUMMARY_CHARS = 500;

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Inside a code span or block: also keep the agent from closing it. */
function code(s: string): string {
  return escapeMrkdwn(s).replace(/`/g, "ˋ");
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
const slackDate = (d: Date, fallback: string) => `<!date^${Math.floor(d.getTime() / 1000)}^{date_short_pretty} {time}|${fallback}>`;

export function shortDigest(digest: string): string {
  const [alg, hex] = digest.includes(":") ? digest.split(":", 2) : ["", digest];
  return `${alg ? `${alg}:` : ""}${hex!.slice(0, 12)}…`;
}

function header(f: SlackRequestFacts): Block[] {
  const fields = [
    `*Tool*\n\`${code(f.tool)}\``,
    `*Service*\n${escapeMrkdwn(f.service)}`,
    `*Effects*\n${f.effects === "destructive" ? ":warning: destructive" : escapeMrkdwn(f.effects)}`,
    `*Environment*\n${escapeMrkdwn(f.environment ?? "not given")}`,
    `*Expires*\n${slackDate(f.expiresAt, f.expiresAt.toISOString())}`,
    f.digestShown ? `*Digest*\n\`${code(shortDigest(f.argsDigest))}\`` : "*Digest*\nfor the reviewers: Full digest",
  ];
  const blocks: Block[] = [
    { type: "header", text: { type: "plain_text", text: clip(`Review needed: ${f.tool}`, 150), emoji: false } },
    { type: "section", fields: fields.map((text) => ({ type: "mrkdwn", text })) },
  ];
  if (f.summary) {
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: `*Written by the agent, not verified:* ${escapeMrkdwn(clip(f.summary, SUMMARY_CHARS))}` }],
    });
  }
  const args = prettyArgs(f.redactedArgs);
  const cut = args.length > ARGS_PREVIEW_CHARS;
  blocks.push({
    type: "section",
    text: {
      type: "mrkdwn",
      text: `*Arguments* (redacted${cut ? `; the first ${ARGS_PREVIEW_CHARS} characters, <${f.reviewUrl}|the rest on the request page>` : ""})\n\`\`\`${code(clip(args, ARGS_PREVIEW_CHARS))}\`\`\``,
    },
  });
  return blocks;
}

function prettyArgs(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 1);
  } catch {
    return json;
  }
}

/** The message while the request waits: the facts and the three buttons. */
export function pendingMessage(f: SlackRequestFacts): SlackMessage {
  const approve: Block = {
    type: "button",
    action_id: ACTION.approve,
    text: { type: "plain_text", text: "Approve" },
    style: "primary",
    value: f.approvalId,
  };
  if (f.effects === "destructive") {
    // Slack asks again before it sends the click: this call cannot be undone.
    approve.confirm = {
      title: { type: "plain_text", text: "Approve a destructive call?" },
      text: { type: "mrkdwn", text: `\`${code(f.tool)}\` cannot be undone. Approve it with the arguments shown?` },
      confirm: { type: "plain_text", text: "Approve" },
      deny: { type: "plain_text", text: "Cancel" },
      style: "danger",
    };
  }
  return {
    text: `Review needed: ${f.tool} from ${f.service}`,
    blocks: [
      ...header(f),
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: `${f.approveCount} of ${f.quorum} approval${f.quorum === 1 ? "" : "s"} so far` }],
      },
      {
        type: "actions",
        block_id: "decide",
        elements: [
          approve,
          { type: "button", action_id: ACTION.deny, text: { type: "plain_text", text: "Deny" }, style: "danger", value: f.approvalId },
          { type: "button", action_id: ACTION.digest, text: { type: "plain_text", text: "Full digest" }, value: f.approvalId },
          { type: "button", action_id: ACTION.open, text: { type: "plain_text", text: "Open" }, url: f.reviewUrl, value: f.approvalId },
        ],
      },
    ],
  };
}

const VERDICT: Record<SlackOutcome["status"], string> = {
  approved: ":white_check_mark: Approved",
  denied: ":no_entry: Denied",
  expired: ":hourglass: Expired, nobody decided in time",
  cancelled: ":leftwards_arrow_with_hook: Withdrawn by the service",
  revised: ":pencil2: Changes proposed",
};

/** The message once the request is decided anywhere: the facts, who decided, no buttons. */
export function decidedMessage(f: SlackRequestFacts, o: SlackOutcome): SlackMessage {
  const who = o.decidedBy.length ? ` by ${o.decidedBy.map(escapeMrkdwn).join(", ")}` : "";
  const when = o.decidedAt ? ` ${slackDate(o.decidedAt, o.decidedAt.toISOString())}` : "";
  const reason = o.status === "denied" && o.reason ? `\n>${escapeMrkdwn(clip(o.reason, 500)).replace(/\n/g, "\n>")}` : "";
  return {
    text: `${f.tool} from ${f.service}: ${o.status}${o.decidedBy.length ? ` by ${o.decidedBy.join(", ")}` : ""}`,
    blocks: [
      ...header(f).map((b) =>
        b.type === "header" ? { ...b, text: { type: "plain_text", text: clip(`${f.tool}: ${o.status}`, 150), emoji: false } } : b,
      ),
      { type: "section", block_id: "outcome", text: { type: "mrkdwn", text: `*${VERDICT[o.status]}*${who}${when}${reason}` } },
      { type: "actions", elements: [{ type: "button", action_id: ACTION.open, text: { type: "plain_text", text: "Open" }, url: f.reviewUrl }] },
    ],
  };
}

/** The modal a Deny click opens: the reason is required, as on the review page. */
export function denyModal(f: { approvalId: string; tool: string }, privateMetadata: string): Block {
  return {
    type: "modal",
    callback_id: DENY_MODAL,
    private_metadata: privateMetadata,
    title: { type: "plain_text", text: "Deny this call" },
    submit: { type: "plain_text", text: "Deny" },
    close: { type: "plain_text", text: "Cancel" },
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `Deny \`${code(f.tool)}\`? A single denial decides the request.` } },
      {
        type: "input",
        block_id: "reason",
        label: { type: "plain_text", text: "Reason" },
        element: { type: "plain_text_input", action_id: "reason", multiline: true, max_length: 2000 },
      },
    ],
  };
}
