// The Block Kit messages (lib/slack/blocks.ts), pure: what a reviewer sees in
// Slack, and that nothing an agent wrote can become a mention or a link.
import { describe, expect, it } from "vitest";
import {
  ARGS_PREVIEW_CHARS,
  decidedMessage,
  denyModal,
  escapeMrkdwn,
  pendingMessage,
  shortDigest,
  slackApprovalRefusal,
  slackArguments,
  type Block,
  type SlackRequestFacts,
} from "@/lib/slack/blocks";
import { visibleText } from "./slack-api";

const facts: SlackRequestFacts = {
  approvalId: "apr_abc",
  tool: "payments.refund",
  service: "billing",
  effects: "write",
  environment: "production",
  runId: "run-7",
  callId: "call-1",
  requestedBy: "agent@example.com",
  expiresAt: new Date("2026-12-01T12:00:00Z"),
  argsDigest: `sha256:${"ab12".repeat(16)}`,
  digestShown: true,
  summary: "Refund <!channel> now, see <https://evil.example|the docs> & thanks",
  redactedArgs: JSON.stringify({ amount: 12, password: "[redacted:secret_key]" }),
  reviewUrl: "https://countersign.example.com/approvals/apr_abc",
  quorum: 2,
  approveCount: 0,
};

describe("Slack messages", () => {
  it("names the call, shortens the digest and marks the summary as the agent's, escaped", () => {
    const m = pendingMessage(facts);
    const text = visibleText(m.blocks);
    expect(m.text).toBe("Review needed: payments.refund from billing");
    expect(text).toContain("payments.refund");
    expect(text).toContain("billing");
    expect(text).toContain("production");
    expect(text).toContain(`sha256:${"ab12".repeat(3)}…`);
    expect(text).not.toContain(facts.argsDigest);
    expect(text).toContain(
      "*Written by the agent, not verified:* Refund &lt;!channel&gt; now, see &lt;https://evil.example|the docs&gt; &amp; thanks",
    );
    expect(text).not.toContain("<!channel>");
    expect(text).toContain('"password": "[redacted:secret_key]"');
  });

  it("leaves the digest out where not every reader may see it", () => {
    const text = visibleText(pendingMessage({ ...facts, digestShown: false }).blocks);
    expect(text).not.toContain("ab12ab12");
    expect(text).toContain("*Digest*\nfor the reviewers: Full digest");
    expect(
      visibleText(decidedMessage({ ...facts, digestShown: false }, { status: "approved", decidedBy: [], reason: null, decidedAt: null }).blocks),
    ).not.toContain("ab12ab12");
  });

  it("cuts long arguments and links to the rest; no code block can be closed from inside", () => {
    const long = { ...facts, redactedArgs: JSON.stringify({ note: `${"x".repeat(2000)}\`\`\` *bold*` }) };
    const section = pendingMessage(long).blocks.find((b) => JSON.stringify(b).includes("Arguments"))!;
    const text = (section.text as { text: string }).text;
    expect(text).toContain(`the first ${ARGS_PREVIEW_CHARS} characters, <${facts.reviewUrl}|the rest on the request page>`);
    expect(text.length).toBeLessThan(ARGS_PREVIEW_CHARS + 300);
    expect(text.match(/```/g)).toHaveLength(2);
  });

  it("asks again before approving a destructive call, and not otherwise", () => {
    const approveOf = (f: SlackRequestFacts) =>
      (pendingMessage(f).blocks.find((b) => b.type === "actions")!.elements as Array<Record<string, unknown>>)[0]!;
    expect(approveOf(facts).confirm).toBeUndefined();
    expect(approveOf({ ...facts, effects: "destructive" }).confirm).toMatchObject({
      title: { text: "Approve a destructive call?" },
      style: "danger",
    });
  });

  it("once decided: who decided and why, and no button but Open", () => {
    const m = decidedMessage(facts, {
      status: "denied",
      decidedBy: ["ana@example.com"],
      reason: "Wrong <account>",
      decidedAt: new Date("2026-12-01T11:00:00Z"),
    });
    const text = visibleText(m.blocks);
    expect(text).toContain(":no_entry: Denied");
    expect(text).toContain("ana@example.com");
    expect(text).toContain(">Wrong &lt;account&gt;");
    const buttons = m.blocks.filter((b) => b.type === "actions").flatMap((b) => b.elements as Array<{ action_id: string }>);
    expect(buttons.map((b) => b.action_id)).toEqual(["countersign_open"]);
  });

  it("the deny dialog requires a reason and carries the request", () => {
    const v = denyModal({ approvalId: "apr_abc", tool: "payments.refund" }, '{"approvalId":"apr_abc"}');
    expect(v).toMatchObject({ type: "modal", callback_id: "countersign_deny", private_metadata: '{"approvalId":"apr_abc"}' });
    expect(JSON.stringify(v)).toContain('"block_id":"reason"');
  });

  it("escapes mrkdwn and shortens digests", () => {
    expect(escapeMrkdwn("a<b>&c")).toBe("a&lt;b&gt;&amp;c");
    expect(shortDigest("sha256:0123456789abcdef0123")).toBe("sha256:0123456789ab…");
  });
});

// What must never reach a Slack message raw (as in lib/display/reveal.test.ts).
// Line feeds are the message's own; no other control character is.
const RAW_HIDDEN = /[\p{Cf}\x00-\x09\x0B-\x1F\x7F-\x9F\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\u00A0\u2000-\u200A\u3000\u115F\u1160\u3164\uFFA0]/u;

/** A request whose every field an agent or a service wrote tries to spoof the reviewer. */
const spoof: SlackRequestFacts = {
  ...facts,
  tool: "payments.refund\u202Etxt.exe",
  service: "bill\u200Bing",
  environment: "pr\u043Eduction", // a Cyrillic о
  runId: "run\u00A07",
  callId: "c\u0430ll-1", // a Cyrillic а
  requestedBy: "agent@ex\u0430mple.com",
  summary: "Refund AC-\u202E9876\u202C to the customer",
  redactedArgs: JSON.stringify({ account: "AC-\u202E9876\u202C", ["amount\u200B"]: 12, payee: "p\u0430ypal.com" }),
};

const buttonsOf = (m: { blocks: Block[] }) =>
  m.blocks.filter((b) => b.type === "actions").flatMap((b) => (b.elements as Array<{ action_id: string; url?: string }>).map((e) => e.action_id));

/** Every mrkdwn text object of a message, with our own code spans and blocks taken out: what Slack formats. */
function mrkdwnOutsideCode(blocks: Block[]): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (o.type === "mrkdwn" && typeof o.text === "string") {
        expect(o.verbatim).toBe(true);
        out.push(o.text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, ""));
      } else Object.values(o).forEach(walk);
    }
  };
  walk(blocks);
  return out;
}

describe("Slack messages: what the reviewer sees is what runs", () => {
  it("shows hidden characters in the tool, summary, ids and arguments as visible escapes, and look-alike letters marked", () => {
    const m = pendingMessage(spoof);
    const all = JSON.stringify(m);
    expect(JSON.parse(all)).toEqual(m); // nothing lost to JSON
    expect(visibleText(m.blocks)).not.toMatch(RAW_HIDDEN);
    expect(m.text).not.toMatch(RAW_HIDDEN);
    const text = visibleText(m.blocks);
    expect(text).toContain("payments.refund⟨U+202E⟩txt.exe");
    expect(text).toContain("bill⟨U+200B⟩ing");
    expect(text).toContain("pr⟨о⟩duction");
    expect(text).toContain("run⟨U+00A0⟩7");
    expect(text).toContain("c⟨а⟩ll-1");
    expect(text).toContain("Refund AC-⟨U+202E⟩9876⟨U+202C⟩ to the customer");
    expect(text).toContain('"account": "AC-⟨U+202E⟩9876⟨U+202C⟩"');
    expect(text).toContain('"amount⟨U+200B⟩": 12');
    expect(text).toContain('"payee": "p⟨а⟩ypal.com"');
    // The look-alike letters appear nowhere but inside a mark.
    expect(text.replace(/⟨[^⟩]*⟩/g, "")).not.toMatch(/[\u0430\u043E]/);
    // Each flagged value carries the page's reason.
    expect(text).toContain("`pr⟨о⟩duction` :warning: mixes scripts in one word: Latin + Cyrillic");
  });

  it("carries the page's warning, listing where, and offers Open instead of Approve", () => {
    const m = pendingMessage(spoof);
    const warning = m.blocks.find((b) => b.block_id === "display_warning")!;
    const text = (warning.text as { text: string }).text;
    expect(text).toContain("*Check carefully: this request contains hidden, direction-changing or look-alike characters*");
    expect(text).toContain("`Tool`: direction-changing character right-to-left override (U+202E)");
    expect(text).toContain("`Service`: invisible character zero width space (U+200B)");
    expect(text).toMatch(/and \d+ more/);
    expect(m.blocks.indexOf(warning)).toBe(1); // right under the header, above the facts
    expect(m.text).toMatch(/^⚠ Check carefully\. Review needed: /);

    expect(buttonsOf(m)).toEqual(["countersign_open", "countersign_deny", "countersign_digest"]);
    expect(JSON.stringify(m)).not.toContain("countersign_approve");
    expect(visibleText(m.blocks)).toContain("Approve is not offered in Slack: it contains hidden, direction-changing or look-alike characters");
    expect(slackApprovalRefusal(spoof)).toBe("it contains hidden, direction-changing or look-alike characters");
    // One look-alike id is enough.
    expect(slackApprovalRefusal({ ...facts, callId: "c\u0430ll-1" })).not.toBeNull();
    expect(slackApprovalRefusal({ ...facts, requestedBy: "agent@ex\u0430mple.com" })).not.toBeNull();
    expect(slackApprovalRefusal(facts)).toBeNull();
    expect(buttonsOf(pendingMessage(facts))).toEqual(["countersign_approve", "countersign_deny", "countersign_digest", "countersign_open"]);
  });

  it("neutralises mrkdwn: no formatting, link, mention or emoji from anything a service wrote", () => {
    const inject = "*bold* _it_ ~gone~ `code` <https://evil.example|Open> <!channel> <@U0ADMIN> @here #general :white_check_mark:";
    const m = pendingMessage({
      ...facts,
      tool: "pay*ments*_x_",
      environment: inject,
      runId: "`run`",
      summary: `Fine.\n${inject}\n\`\`\`\nclosed?`,
      redactedArgs: JSON.stringify({ note: inject, "*key*": "```" }),
    });
    const formatted = mrkdwnOutsideCode(m.blocks).join("\n");
    for (const bit of ["bold*", "_it_", "~gone~", "evil", "channel", "U0ADMIN", "@here", "#general", ":white_check_mark:", "pay*", "`run`"]) {
      expect(formatted, bit).not.toContain(bit);
    }
    const all = visibleText(m.blocks);
    // Our own markup only: dates and the request's link; everything else's < > & are entities.
    expect(
      all.replace(/<!date\^\d+\^\{date_short_pretty\} \{time\}\|[^>]+>/g, "").replace(new RegExp(`<${facts.reviewUrl}\\|[^>]+>`, "g"), ""),
    ).not.toMatch(/[<>]/);
    expect(all).toContain("&lt;!channel&gt;");
    // A backtick cannot close a code span or block: it is written as its escape.
    expect(all).toContain("⟨U+0060⟩run⟨U+0060⟩");
    const args = (m.blocks.find((b) => JSON.stringify(b).includes("*Arguments*"))!.text as { text: string }).text;
    expect(args.match(/```/g)).toHaveLength(2);
    expect(m.text).not.toMatch(/[<>]/);
    // The header and the fallback text too.
    const header = m.blocks.find((b) => b.type === "header")!.text as { text: string; emoji: boolean };
    expect(header.emoji).toBe(false);
  });

  it("arguments that do not fit the message whole: the first part, a link, and no Approve", () => {
    const longArgs = JSON.stringify({ amount: 12, note: "x".repeat(ARGS_PREVIEW_CHARS), wire_to: "ATTACKER-IBAN" });
    const long = { ...facts, redactedArgs: longArgs };
    const m = pendingMessage(long);
    expect(buttonsOf(m)).toEqual(["countersign_open", "countersign_deny", "countersign_digest"]);
    expect(visibleText(m.blocks)).not.toContain("ATTACKER-IBAN");
    expect(visibleText(m.blocks)).toContain("Approve is not offered in Slack: its arguments are too long to show whole in a Slack message");
    expect(slackApprovalRefusal(long)).toBe("its arguments are too long to show whole in a Slack message");
    expect(slackArguments(longArgs).whole).toBe(false);
    // A destructive call is no exception.
    expect(JSON.stringify(pendingMessage({ ...long, effects: "destructive" }))).not.toContain("countersign_approve");
  });

  it('decides "fits whole" on what the message shows, escapes included', () => {
    // {\n "n": "…"\n}: 12 characters around the string.
    const sized = (n: number, ch = "x") => JSON.stringify({ n: ch.repeat(n) });
    expect(slackArguments(sized(ARGS_PREVIEW_CHARS - 12))).toMatchObject({ whole: true });
    expect(slackArguments(sized(ARGS_PREVIEW_CHARS - 11))).toMatchObject({ whole: false });
    // "&" is five characters in the message (&amp;), a backtick eight (⟨U+0060⟩).
    expect(slackArguments(sized(Math.floor((ARGS_PREVIEW_CHARS - 12) / 5), "&")).whole).toBe(true);
    expect(slackArguments(sized(Math.ceil((ARGS_PREVIEW_CHARS - 11) / 5), "&")).whole).toBe(false);
    expect(slackArguments(sized(Math.ceil((ARGS_PREVIEW_CHARS - 11) / 8), "`")).whole).toBe(false);
    // A cut never splits an entity or an escape.
    const cut = slackArguments(JSON.stringify({ n: "\u200B&".repeat(1000) })).text;
    expect(cut.length).toBeLessThanOrEqual(ARGS_PREVIEW_CHARS);
    expect(cut).toMatch(/^\{\n "n": "(⟨U\+200B⟩&amp;)+(⟨U\+200B⟩)?…$/);
  });

  it("a decided message and the deny dialog show the same escapes", () => {
    const d = decidedMessage(spoof, { status: "denied", decidedBy: ["ana@example.com"], reason: "*no* <!here>", decidedAt: null });
    const text = visibleText(d.blocks);
    expect(text).not.toMatch(RAW_HIDDEN);
    expect(text).toContain("payments.refund⟨U+202E⟩txt.exe");
    expect(text).toContain("*Check carefully");
    expect(mrkdwnOutsideCode(d.blocks).join("\n")).not.toContain("*no*");
    expect(d.text).not.toMatch(RAW_HIDDEN);
    const modal = JSON.stringify(denyModal({ approvalId: "apr_abc", tool: spoof.tool }, "{}"));
    expect(modal).toContain("payments.refund⟨U+202E⟩txt.exe");
    expect(modal).not.toContain("\u202E");
  });
});
