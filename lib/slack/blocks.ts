// What a Slack message about a request says, in Block Kit. Pure. The same
// facts as the review page, shortened for a chat: tool, service,
// environment, effects, requester, run and call, expiry, the digest (short,
// the full value behind a button), the agent's summary marked as the agent's
// words, and the redacted arguments. Slack shows `text` where blocks cannot
// be shown (notifications, old clients).
//
// What a reviewer sees is what runs (docs/security.md): every value a service
// wrote goes through the page's reveal() (escapes, look-alike marks, the
// per-value flag; lib/display/channel-text.ts) and the message carries the
// page's own warning (requestWarnings). Then Slack's syntax is neutralised:
// `& < >` are always entities, so nothing becomes a link (`<https://evil|Open>`)
// or a mention (`<!channel>`); values sit in code spans, where `*_~` format
// nothing; a backtick, which would end one, is written ⟨U+0060⟩; text
// objects are `verbatim`, so Slack links no bare URL, channel or @name.
//
// Approve is offered only for a request the message can show whole and
// plainly: no display warning, and arguments that fit. slackApprovalRefusal()
// is that rule, used here and again when a click arrives (interactions.ts).
import { clipText, DISPLAY_WARNING_LEGEND, DISPLAY_WARNING_TITLE, plainValue, segmentsAsText } from "../display/channel-text";
import { escapeOf, reveal } from "../display/reveal";
import { requestWarnings } from "../display/request-display";
import type { Warnings } from "../display/scan-findings";

export type SlackRequestFacts = {
  approvalId: string;
  tool: string;
  service: string;
  effects: string;
  environment: string | null;
  runId: string;
  callId: string;
  requestedBy: string | null;
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

/** What the message shows that a service wrote: all the Approve rule looks at. */
export type SlackShownFacts = Pick<
  SlackRequestFacts,
  "tool" | "service" | "environment" | "runId" | "callId" | "requestedBy" | "summary" | "redactedArgs"
>;

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
/** Characters of arguments a message shows (after escaping); arguments that need more are not approvable in Slack. */
export const ARGS_PREVIEW_CHARS = 1500;
const SUMMARY_CHARS = 500;
const VALUE_CHARS = 300;
/** Warning lines a message lists (Slack caps a section at 3,000 characters); the rest are counted. */
const WARNING_ITEMS = 6;

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Inside a code span or block, where nothing else formats: only a backtick could end it. */
function inCode(s: string): string {
  return escapeMrkdwn(s).replace(/`/g, escapeOf(0x60));
}

// What mrkdwn or Slack's parsing would act on outside code: bold, italics,
// strike, code, @names, #channels, :emoji:. (`& < >` are always escaped.)
const FORMATTING = /[*_~`@#]|:[A-Za-z0-9+'-]+:/;

/** Text in a sentence: as it is when nothing in it would format, else as code. */
function prose(s: string): string {
  if (!FORMATTING.test(s)) return escapeMrkdwn(s);
  return s.includes("\n") ? `\`\`\`${inCode(s)}\`\`\`` : `\`${inCode(s)}\``;
}

/** One value a service wrote, as the page shows it: revealed, in a code span, with the page's flag. */
function shown(s: string): string {
  const v = plainValue(s);
  return `\`${inCode(clipText(v.text, VALUE_CHARS))}\`${v.flag ? ` :warning: ${prose(v.flag)}` : ""}`;
}

/** A value in plain-text places (the header, the notification text): revealed, cut, one line. */
const plainOf = (s: string, n: number) => clipText(plainValue(s).text, n);

const mrkdwn = (text: string) => ({ type: "mrkdwn", text, verbatim: true });

/** Cuts escaped text without splitting an entity (&amp;) or an escape. */
function clipEscaped(s: string, n: number): string {
  if (s.length <= n) return s;
  let cut = clipText(s, n).slice(0, -1);
  const amp = cut.lastIndexOf("&");
  if (amp > cut.lastIndexOf(";")) cut = cut.slice(0, amp);
  return `${cut}…`;
}

const slackDate = (d: Date, fallback: string) => `<!date^${Math.floor(d.getTime() / 1000)}^{date_short_pretty} {time}|${fallback}>`;

export function shortDigest(digest: string): string {
  const [alg, hex] = digest.includes(":") ? digest.split(":", 2) : ["", digest];
  return `${alg ? `${alg}:` : ""}${hex!.slice(0, 12)}…`;
}

/**
 * The redacted arguments as the message shows them: indented JSON whose keys
 * and strings are revealed as on the page, escaped for a code block, and
 * `whole` when all of it fits in ARGS_PREVIEW_CHARS. The one decision of
 * "fits whole", for the message and for the click alike.
 */
export function slackArguments(redactedArgs: string): { text: string; whole: boolean } {
  let root: unknown;
  try {
    root = JSON.parse(redactedArgs);
  } catch {
    return { text: "(the arguments could not be read here)", whole: false };
  }
  const plain = revealedJson(root, ARGS_PREVIEW_CHARS + 1);
  const text = inCode(plain.text);
  if (!plain.cut && text.length <= ARGS_PREVIEW_CHARS) return { text, whole: true };
  return { text: clipEscaped(text, ARGS_PREVIEW_CHARS), whole: false };
}

/** JSON.stringify(v, null, 1) with revealed keys and strings, built only until it passes `budget` characters. */
function revealedJson(root: unknown, budget: number): { text: string; cut: boolean } {
  let out = "";
  const str = (s: string) => segmentsAsText(reveal(s.length > budget ? s.slice(0, budget) : s, { json: true }).segments);
  const walk = (v: unknown, indent: string): boolean => {
    if (typeof v === "string") out += str(v);
    else if (v === null || typeof v !== "object") out += JSON.stringify(v);
    else {
      const entries: Array<[string | null, unknown]> = Array.isArray(v) ? v.map((x) => [null, x]) : Object.entries(v);
      const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
      if (entries.length === 0) out += open + close;
      else {
        out += open;
        for (let i = 0; i < entries.length; i++) {
          const [key, value] = entries[i]!;
          out += `${i ? "," : ""}\n${indent} ${key === null ? "" : `${str(key)}: `}`;
          if (out.length > budget || !walk(value, `${indent} `)) return false;
        }
        out += `\n${indent}${close}`;
      }
    }
    return out.length <= budget;
  };
  const whole = walk(root, "");
  return { text: out, cut: !whole };
}

const REFUSAL = {
  warning: "it contains hidden, direction-changing or look-alike characters",
  cut: "its arguments are too long to show whole in a Slack message",
} as const;

type SlackView = { warnings: Warnings; args: { text: string; whole: boolean }; refusal: string | null };

function slackView(f: SlackShownFacts): SlackView {
  let root: unknown = null;
  try {
    root = JSON.parse(f.redactedArgs);
  } catch {
    // slackArguments() says so, and the request is not approvable here
  }
  const warnings = requestWarnings(f, root);
  const args = slackArguments(f.redactedArgs);
  const refusal = warnings.total > 0 || warnings.partial ? REFUSAL.warning : args.whole ? null : REFUSAL.cut;
  return { warnings, args, refusal };
}

/**
 * Why this request may not be approved from Slack, or null when it may: it
 * has a display warning, or its arguments do not fit the message whole.
 * Deny stays possible either way.
 */
export function slackApprovalRefusal(f: SlackShownFacts): string | null {
  return slackView(f).refusal;
}

function warningBlocks(w: Warnings): Block[] {
  if (w.total === 0) return [];
  const items = w.items.slice(0, WARNING_ITEMS);
  const more = w.total - items.length;
  const lines = [
    `:warning: *${DISPLAY_WARNING_TITLE}*`,
    escapeMrkdwn(DISPLAY_WARNING_LEGEND),
    ...items.map((i) => `• \`${clipEscaped(inCode(i.where), 200)}\`: ${prose(i.what)}`),
    ...(more > 0 ? [`• and ${more.toLocaleString("en-US")} more`] : []),
  ];
  return [{ type: "section", block_id: "display_warning", text: mrkdwn(lines.join("\n")) }];
}

function header(f: SlackRequestFacts, v: SlackView): Block[] {
  const fields = [
    `*Tool*\n${shown(f.tool)}`,
    `*Service*\n${shown(f.service)}`,
    `*Effects*\n${f.effects === "destructive" ? ":warning: destructive" : escapeMrkdwn(f.effects)}`,
    `*Environment*\n${f.environment === null ? "not given" : shown(f.environment)}`,
    ...(f.requestedBy === null ? [] : [`*Requested by*\n${shown(f.requestedBy)}`]),
    `*Run*\n${shown(f.runId)}`,
    `*Call*\n${shown(f.callId)}`,
    `*Expires*\n${slackDate(f.expiresAt, f.expiresAt.toISOString())}`,
    f.digestShown ? `*Digest*\n\`${inCode(shortDigest(f.argsDigest))}\`` : "*Digest*\nfor the reviewers: Full digest",
  ];
  const blocks: Block[] = [
    { type: "header", text: { type: "plain_text", text: escapeMrkdwn(clipText(`Review needed: ${plainOf(f.tool, 140)}`, 150)), emoji: false } },
    ...warningBlocks(v.warnings),
    { type: "section", fields: fields.map(mrkdwn) },
  ];
  if (f.summary) {
    const summary = clipText(plainValue(f.summary, { multiline: true }).text, SUMMARY_CHARS);
    blocks.push({ type: "context", elements: [mrkdwn(`*Written by the agent, not verified:* ${prose(summary)}`)] });
  }
  blocks.push({
    type: "section",
    text: mrkdwn(
      `*Arguments* (redacted${v.args.whole ? "" : `; the first ${ARGS_PREVIEW_CHARS} characters, <${f.reviewUrl}|the rest on the request page>`})\n\`\`\`${v.args.text}\`\`\``,
    ),
  });
  return blocks;
}

/**
 * The message while the request waits: the facts and the buttons. Approve
 * only when slackApprovalRefusal() allows it; otherwise Open comes first and
 * the message says why.
 */
export function pendingMessage(f: SlackRequestFacts): SlackMessage {
  const v = slackView(f);
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
      text: mrkdwn(`${shown(f.tool)} cannot be undone. Approve it with the arguments shown?`),
      confirm: { type: "plain_text", text: "Approve" },
      deny: { type: "plain_text", text: "Cancel" },
      style: "danger",
    };
  }
  const deny: Block = { type: "button", action_id: ACTION.deny, text: { type: "plain_text", text: "Deny" }, style: "danger", value: f.approvalId };
  const digest: Block = { type: "button", action_id: ACTION.digest, text: { type: "plain_text", text: "Full digest" }, value: f.approvalId };
  const open: Block = { type: "button", action_id: ACTION.open, text: { type: "plain_text", text: "Open" }, url: f.reviewUrl, value: f.approvalId };
  const status = `${f.approveCount} of ${f.quorum} approval${f.quorum === 1 ? "" : "s"} so far`;
  return {
    text: `${v.warnings.total > 0 ? "⚠ Check carefully. " : ""}Review needed: ${prose(plainOf(f.tool, 140))} from ${prose(plainOf(f.service, 140))}`,
    blocks: [
      ...header(f, v),
      {
        type: "context",
        elements: [
          mrkdwn(v.refusal ? `${status}. Approve is not offered in Slack: ${v.refusal}. Open the request to review it and vote there.` : status),
        ],
      },
      {
        type: "actions",
        block_id: "decide",
        elements: v.refusal ? [{ ...open, style: "primary" }, deny, digest] : [approve, deny, digest, open],
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
  const v = slackView(f);
  const who = o.decidedBy.length ? ` by ${o.decidedBy.map((d) => prose(plainOf(d, 320))).join(", ")}` : "";
  const when = o.decidedAt ? ` ${slackDate(o.decidedAt, o.decidedAt.toISOString())}` : "";
  let reason = "";
  if (o.status === "denied" && o.reason) {
    const r = clipText(plainValue(o.reason, { multiline: true }).text, 500);
    reason = FORMATTING.test(r) ? `\n${prose(r)}` : `\n>${escapeMrkdwn(r).replace(/\n/g, "\n>")}`;
  }
  const tool = plainOf(f.tool, 140);
  return {
    text: `${prose(tool)} from ${prose(plainOf(f.service, 140))}: ${o.status}${who}`,
    blocks: [
      ...header(f, v).map((b) =>
        b.type === "header" ? { ...b, text: { type: "plain_text", text: escapeMrkdwn(clipText(`${tool}: ${o.status}`, 150)), emoji: false } } : b,
      ),
      { type: "section", block_id: "outcome", text: mrkdwn(`*${VERDICT[o.status]}*${who}${when}${reason}`) },
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
      { type: "section", text: mrkdwn(`Deny ${shown(f.tool)}? A single denial decides the request.`) },
      {
        type: "input",
        block_id: "reason",
        label: { type: "plain_text", text: "Reason" },
        element: { type: "plain_text_input", action_id: "reason", multiline: true, max_length: 2000 },
      },
    ],
  };
}
