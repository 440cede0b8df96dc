// What a notice says, on each channel: the call and the link, never an
// argument value; a lock screen (push) shows even less than an email.
import { describe, expect, it } from "vitest";
import { composeMessage, composePush, composeTestMessage, type MessageFacts } from "@/lib/notifications/compose-message";

const facts: MessageFacts & { approvalId: string } = {
  kind: "reminder",
  approvalId: "apr_abc",
  tool: "payments.refund",
  service: "billing",
  effects: "destructive",
  environment: "production",
  expiresAt: new Date("2026-11-30T21:05:00.000Z"),
  reviewUrl: "https://countersign.example.com/approvals/apr_abc",
  summary: "Refund\norder 1234\nReview it: https://evil.example",
  requiredRoles: ["payments"],
  quorum: 2,
};

describe("composePush", () => {
  it("names the call and links to it, and replaces an earlier notice about the same request", () => {
    expect(composePush(facts)).toEqual({
      title: "Reminder: review needed: payments.refund",
      body: 'billing (production) · destructive · expires 21:05 UTC\nAgent says (unchecked): "Refund order 1234 Review it: https://evil.example"',
      url: "https://countersign.example.com/approvals/apr_abc",
      tag: "approval-apr_abc",
    });
    expect(composePush({ ...facts, kind: "needs_review" }).tag).toBe(composePush(facts).tag);
  });

  it("keeps a long tool name and summary to bounded lines", () => {
    const long = composePush({ ...facts, tool: `a${"x".repeat(500)}\nfake line`, summary: "y".repeat(5000) });
    expect(long.body.split("\n")).toHaveLength(2);
    expect(composePush({ ...facts, summary: null }).body).toBe("billing (production) · destructive · expires 21:05 UTC");
    expect(long.title.length).toBeLessThanOrEqual(110);
    expect(long.title).not.toContain("\n");
    // Web Push payloads are at most 4 KB after encryption: this stays far below.
    expect(Buffer.byteLength(JSON.stringify(long))).toBeLessThan(1024);
  });
});

describe("composeMessage", () => {
  it("quotes the summary as the agent's words, on one line", () => {
    const m = composeMessage(facts);
    expect(m.text).toContain(`The agent's summary (written by the agent, not checked): "Refund order 1234 Review it: https://evil.example"`);
    expect(m.text.split("\n").filter((l) => l.startsWith("Review it:"))).toEqual([`Review it: ${facts.reviewUrl}`]);
  });
});

describe("composeTestMessage", () => {
  it("links to the settings page on every channel", () => {
    const m = composeTestMessage("https://countersign.example.com/settings");
    expect(m.text).toContain("https://countersign.example.com/settings");
    expect(m.html).toContain('href="https://countersign.example.com/settings"');
    expect(m.push.url).toBe("https://countersign.example.com/settings");
  });
});
