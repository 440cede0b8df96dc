// docs/security.md: `__proto__` is an ordinary key. Followed through every step
// ingestion takes with the arguments: strict parse, the zod schema, the
// digest, the redactor and the JSON stored as the redacted copy.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { argsDigest } from "@countersign/client";
import { parseJsonBody } from "../http/parse-json";
import { compileRedactor } from "../redaction/redactor";
import { approvalRequestedSchema } from "./schemas";

const SALT = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8";

function ingestSteps(body: string) {
  const event = approvalRequestedSchema.parse(parseJsonBody(new TextEncoder().encode(body)));
  const args = event.data.arguments;
  const redacted = JSON.stringify(compileRedactor().redactValue(args).value);
  return { args, redacted, digest: argsDigest(args, event.data.args_salt) };
}

describe("__proto__ in arguments", () => {
  it("is kept by the schema, digested, redacted like any key and stored", () => {
    const body = JSON.stringify({
      type: "approval.requested",
      data: { run_id: "r1", call_id: "c1", tool: "t", args_salt: SALT, arguments: { amount: 1 } },
    }).replace('{"amount":1}', '{"__proto__":{"to":"ana@example.com","role":"admin"},"amount":1}');
    const { args, redacted, digest } = ingestSteps(body);

    expect(Object.keys(args)).toEqual(["__proto__", "amount"]);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    // The digest is that of the arguments as sent, __proto__ included.
    const jcs = '{"__proto__":{"role":"admin","to":"ana@example.com"},"amount":1}';
    expect(digest).toBe(`sha256:${createHash("sha256").update(`${SALT}.${jcs}`).digest("hex")}`);
    expect(digest).not.toBe(argsDigest({ amount: 1 }, SALT));
    // Redacted inside, kept as a key in the stored copy.
    expect(redacted).toBe('{"__proto__":{"to":"[redacted:email]","role":"admin"},"amount":1}');
    expect(Object.keys(JSON.parse(redacted) as object)).toEqual(["__proto__", "amount"]);
  });

  it("is a secret-named value's neighbour like any other, at depth too", () => {
    const body =
      '{"type":"approval.requested","data":{"run_id":"r1","call_id":"c1","tool":"t","arguments":' +
      '{"nested":[{"__proto__":{"password":"hunter2"}}],"__proto__":"x"}}}';
    const { args, redacted } = ingestSteps(body);
    expect(Object.keys(args)).toEqual(["nested", "__proto__"]);
    expect(redacted).not.toContain("hunter2");
    expect(JSON.parse(redacted)).toEqual(JSON.parse('{"nested":[{"__proto__":{"password":"[redacted:secret_key]"}}],"__proto__":"x"}'));
  });
});
