// The requester key (lib/identity/requester-key.ts) on its own: every spelling
// of an address that docs/security.md names keys like the address; other addresses do not;
// a requested_by that is no address is refused without echoing it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { approvalRequestedSchema } from "@/lib/approvals/schemas";
import { normalizeEmailAddress, personKeys, requesterKey } from "@/lib/identity/requester-key";
import { requesterVariant } from "./requester-variants";

const email = fc
  .tuple(
    fc.stringMatching(/^[a-z][a-z0-9._-]{0,10}[a-z0-9]$/),
    fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z]$/),
    fc.constantFrom("com", "org", "io", "co.uk"),
  )
  .filter(([l]) => !l.includes(".."))
  .map(([l, d, t]) => `${l}@${d}.${t}`);

describe("requesterKey", () => {
  it("keys every documented spelling of an address as the address (property)", () => {
    fc.assert(
      fc.property(
        email.chain((e) => fc.tuple(fc.constant(e), requesterVariant(e))),
        ([e, variant]) => {
          expect(normalizeEmailAddress(variant), JSON.stringify(variant)).not.toBeNull();
          expect(requesterKey(variant), JSON.stringify(variant)).toBe(requesterKey(e));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("keys the examples of issue 11 as ana@example.com", () => {
    const ana = requesterKey("ana@example.com");
    for (const v of [
      "ａｎａ@example.com",
      "ana@example.com.",
      "\u0430na@example.com",
      "ana+agent@example.com",
      "mailto:ana@example.com",
      "Ana <ana@example.com>",
      " ANA@Example.COM ",
      "\u0391\u039d\u0391@EXAMPLE.COM",
      "ana@ex\u0430mple\u3002com",
      '"Ana" <MAILTO:Ana+x@Example.Com.>',
    ]) {
      expect(requesterKey(v), JSON.stringify(v)).toBe(ana);
    }
    expect(requesterKey("ana@xn--exmple-cua.com")).toBe(requesterKey("ana@exämple.com"));
  });

  it("keeps different people apart", () => {
    const ana = requesterKey("ana@example.com");
    for (const other of ["anna@example.com", "ana@example.co", "ana@example.org", "bob@example.com", "ana@exämple.com", "ana.b@example.com"]) {
      expect(requesterKey(other), other).not.toBe(ana);
    }
    // A confusable skeleton is only ever compared with another: equal skeletons, different letters.
    fc.assert(
      fc.property(email, email, (a, b) => {
        if (normalizeEmailAddress(a) !== normalizeEmailAddress(b) && requesterKey(a) === requesterKey(b)) {
          // Only letters TS #39 calls confusable may differ (e.g. "rn" and "m", "l" and "1").
          expect(a.replace(/rn/g, "m").replace(/1/g, "l").replace(/0/g, "o")).toBe(b.replace(/rn/g, "m").replace(/1/g, "l").replace(/0/g, "o"));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("knows a person by their email and each linked identity's email and subject", () => {
    const keys = personKeys({
      email: "ria@example.com",
      identities: [
        { email: "Ria.W@Corp.example", subject: "sub-1" },
        { email: null, subject: "RIA@EXAMPLE.NET" },
      ],
    });
    expect(keys).toContain(requesterKey("mailto:ria.w@corp.example."));
    expect(keys).toContain(requesterKey("ria@example.net"));
    expect(keys).toContain(requesterKey("ria@example.com"));
    expect(keys).not.toContain(requesterKey("sub-2"));
  });
});

describe("requested_by in the webhook schema", () => {
  const body = (requested_by: string) => ({
    type: "approval.requested",
    data: { run_id: "r", call_id: "c", tool: "t", arguments: {}, requested_by },
  });

  it("accepts every documented spelling of an address", () => {
    fc.assert(
      fc.property(email.chain(requesterVariant), (v) => {
        expect(approvalRequestedSchema.safeParse(body(v)).success, JSON.stringify(v)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses a requested_by that is not an email address, without echoing it", () => {
    for (const bad of [
      "agent:demo",
      "ana",
      "ana@",
      "@example.com",
      "ana@localhost",
      "Ana <>",
      "mailto:",
      "a b@example.com",
      "SECRET-VALUE-42",
      "ana@exa mple.com",
    ]) {
      const r = approvalRequestedSchema.safeParse(body(bad));
      expect(r.success, bad).toBe(false);
      const issue = r.error!.issues.find((i) => i.path.join(".") === "data.requested_by");
      expect(issue, bad).toBeDefined();
      expect(issue!.message).not.toContain(bad);
    }
  });
});
