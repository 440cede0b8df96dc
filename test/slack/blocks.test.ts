// The Block Kit messages (lib/slack/blocks.ts), pure: what a reviewer sees in
// Slack, and that nothing an agent wrote can become a mention or a link.
import { describe, expect, it } from "vitest";
import { ARGS_PREVIEW_CHARS, decidedMessage, denyModal, escapeMrkdwn, pendingMessage, shortDigest, type SlackRequestFacts } from "@/lib/slack/blocks";
import { visibleText } from "./slack-api";

const facts: SlackRequestFacts = {
  approvalId: "apr_abc",
  tool: "payments.refund",
  service: "billing",
  effects: "write",
  environment: "production",
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
