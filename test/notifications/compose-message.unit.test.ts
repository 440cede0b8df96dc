// What a notice says, on each channel: the call and the link, never an
// argument value; a lock screen (push) shows even less than an email.
import { describe, expect, it } from "vitest";
import { composeMessage, composePush, composeTestMessage, type MessageFacts } from "@/lib/notifications/compose-message";
import { reviewEvent } from "@/lib/notifications/webhook-event";
import { requestWarnings } from "@/lib/display/request-display";

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
  displayWarnings: { items: [], total: 0, partial: false },
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

// What must never reach a message raw (as in lib/display/reveal.test.ts); line feeds are the message's own.
const RAW_HIDDEN = /[\p{Cf}\x00-\x09\x0B-\x1F\x7F-\x9F\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\u00A0\u2000-\u200A\u3000\u115F\u1160\u3164\uFFA0]/u;

/** A request whose text fields and arguments hide what they say; the warning is the page's own, for all of it. */
function spoofed(): MessageFacts & { approvalId: string } {
  const text = {
    tool: "payments.refund\u202Etxt.exe",
    service: "bill\u200Bing",
    environment: "pr\u043Eduction", // a Cyrillic о
    runId: "run-1",
    callId: "call-1",
    requestedBy: "agent@example.com",
    summary: "Refund AC-\u202E9876\u202C <script>alert(1)</script> & thanks",
  };
  const args = { "secret\u200Bkey": "ACCT-7741-NEVER" };
  return { ...facts, ...text, kind: "needs_review", displayWarnings: requestWarnings(text, args) };
}

describe("every notice shows what the page shows: escapes, marks and the warning", () => {
  it("email: visible escapes and marks in text and HTML, the warning first, no argument key or value", () => {
    const m = composeMessage(spoofed());
    for (const part of [m.subject, m.text, m.html]) {
      expect(part).not.toMatch(RAW_HIDDEN);
      expect(part).not.toContain("ACCT-7741-NEVER");
      expect(part).not.toContain("secret");
    }
    expect(m.subject).toBe("⚠ Check carefully: Review needed: payments.refund⟨U+202E⟩txt.exe from bill⟨U+200B⟩ing (pr⟨о⟩duction)");
    const lines = m.text.split("\n");
    expect(lines[0]).toBe("⚠ Check carefully: this request contains hidden, direction-changing or look-alike characters.");
    expect(lines).toContain("- Tool: direction-changing character right-to-left override (U+202E)");
    expect(lines).toContain("- the arguments: invisible character zero width space (U+200B)");
    expect(lines).toContain("Tool: payments.refund⟨U+202E⟩txt.exe ⚠ direction-changing character right-to-left override (U+202E)");
    expect(lines.find((l) => l.startsWith("Environment: "))).toMatch(/^Environment: pr⟨о⟩duction ⚠ mixes scripts in one word: Latin \+ Cyrillic/);
    // The flag is Countersign's, outside the agent's quoted words.
    expect(m.text).toContain('"Refund AC-⟨U+202E⟩9876⟨U+202C⟩ <script>alert(1)</script> & thanks" ⚠ direction-changing');
    // The HTML part: the page's highlighting, every value escaped for HTML.
    expect(m.html.startsWith('<div role="alert"')).toBe(true);
    expect(m.html).toContain("Check carefully: this request contains hidden, direction-changing or look-alike characters");
    expect(m.html).toContain('title="U+202E right-to-left override">⟨U+202E⟩</span>');
    expect(m.html).toMatch(/pr<mark [^>]*>о<\/mark>duction/);
    expect(m.html).toContain("&#60;script&#62;alert(1)&#60;/script&#62; &#38; thanks");
    expect(m.html).not.toContain("<script>");
  });

  it("push: the warning as its first line, escapes in the title and body", () => {
    const p = composePush(spoofed());
    expect(p.title).toBe("Review needed: payments.refund⟨U+202E⟩txt.exe");
    expect(p.body.split("\n")[0]).toBe("⚠ Check carefully: hidden, direction-changing or look-alike characters (shown as ⟨…⟩)");
    expect(p.body).toContain("bill⟨U+200B⟩ing (pr⟨о⟩duction)");
    expect(p.body).toContain("AC-⟨U+202E⟩9876⟨U+202C⟩");
    expect(JSON.stringify(p)).not.toMatch(RAW_HIDDEN);
    expect(JSON.stringify(p)).not.toContain("secret");
  });

  it("notification webhook: escaped values, the display warning, no argument key or value", () => {
    const f = spoofed();
    const event = reviewEvent("needs_review", { ...f, quorumUnreachable: false }, new Date("2026-11-30T20:00:00Z"));
    expect(event.data).toMatchObject({
      tool: "payments.refund⟨U+202E⟩txt.exe",
      service: "bill⟨U+200B⟩ing",
      environment: "pr⟨о⟩duction",
      agent_summary: "Refund AC-⟨U+202E⟩9876⟨U+202C⟩ <script>alert(1)</script> & thanks",
      warnings: ["display-warning"],
    });
    expect(event.data.display_warning!.title).toBe("Check carefully: this request contains hidden, direction-changing or look-alike characters");
    expect(event.data.display_warning!.items).toContainEqual({ where: "the arguments", what: "invisible character zero width space (U+200B)" });
    expect(event.data.display_warning!.total).toBe(f.displayWarnings.total);
    const body = JSON.stringify(event);
    expect(JSON.parse(body)).toEqual(event);
    expect(body).not.toMatch(RAW_HIDDEN);
    expect(body).not.toContain("secret");
    expect(body).not.toContain("ACCT-7741-NEVER");
    // A plain request: no warning, values as they are.
    const plain = reviewEvent("needs_review", { ...facts, quorumUnreachable: true });
    expect(plain.data).toMatchObject({ tool: "payments.refund", warnings: ["quorum-unreachable"] });
    expect(plain.data.display_warning).toBeUndefined();
  });

  it("a plain request's messages have no warning", () => {
    expect(composeMessage(facts).text).not.toContain("Check carefully");
    expect(composeMessage(facts).subject).toBe("Reminder: review needed: payments.refund from billing (production)");
    expect(composePush(facts).body).not.toContain("Check carefully");
  });
});
