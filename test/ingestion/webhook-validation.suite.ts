// Request validation (docs/api.md) and strict I-JSON parsing (docs/security.md) over real
// HTTP against the running app, on one database: invalid, oversized and lossy
// bodies are refused and store nothing; `__proto__` and exact numbers are kept.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { argsDigest } from "@countersign/client";
import { bodyWith, callData, event, jcsDigest, salt, useWebhookService } from "./webhook-harness";

function isPlainObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function webhookValidationSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`webhook validation and I-JSON (${provider})`, () => {
    const { db, post, stored, expectRefusedWithoutStoring } = useWebhookService(app, "val");

    it("refuses an invalid body with paths and without echoing values", async () => {
      const secretish = "SUPER-SECRET-VALUE-<script>";
      const r = await expectRefusedWithoutStoring(
        () => post(JSON.stringify(event(callData({ tool: `bad tool ${secretish}`, effects: secretish, expires_in: secretish })))),
        422,
        "invalid-request",
      );
      const issues = r.body.issues as Array<{ path: string; message: string }>;
      expect(issues.map((i) => i.path).sort()).toEqual(["data.effects", "data.expires_in", "data.tool"]);
      expect(JSON.stringify(r.body)).not.toContain("SUPER-SECRET");
      await expectRefusedWithoutStoring(() => post(JSON.stringify({ type: "approval.requested", data: { tool: "x" } })), 422, "invalid-request");
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(callData({ arguments: [1, 2] })))), 422, "invalid-request");
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(callData({ run_id: "a\nb" })))), 422, "invalid-request");
      await expectRefusedWithoutStoring(() => post(JSON.stringify(event(callData({ summary: "x".repeat(2001) })))), 422, "invalid-request");
    });

    it("refuses a body that is not JSON, not UTF-8, or nested too deeply: 422", async () => {
      await expectRefusedWithoutStoring(() => post("{not json"), 422, "invalid-request");
      await expectRefusedWithoutStoring(() => post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), 422, "invalid-request");
      const deep = "[".repeat(10_000) + "]".repeat(10_000);
      await expectRefusedWithoutStoring(
        () => post(JSON.stringify(event(callData())).replace('"amount":10', `"amount":${deep}`)),
        422,
        "invalid-request",
      );
    });

    it("refuses a body over 256 KiB: 413, without buffering it", async () => {
      const big = JSON.stringify(event(callData({ arguments: { blob: "x".repeat(256 * 1024) } })));
      await expectRefusedWithoutStoring(() => post(big), 413, "too-large");
      const huge = new Uint8Array(50 * 1024 * 1024).fill(0x20);
      const started = Date.now();
      await expectRefusedWithoutStoring(() => post(huge), 413, "too-large");
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it("never answers 5xx nor stores anything for malformed bodies and headers (property test)", async () => {
      const jsonish = fc.oneof(
        fc.string(),
        fc.json(),
        fc.record({ type: fc.constant("approval.requested"), data: fc.dictionary(fc.string(), fc.jsonValue()) }).map((v) => JSON.stringify(v)),
        fc
          .record({
            type: fc.constant("approval.requested"),
            // Drop the rare draw that has every required field with an object for
            // arguments: it may well be a valid request (say run_id " "), which the
            // contract accepts; the tests above cover valid ones.
            data: fc
              .record({ run_id: fc.string(), call_id: fc.string(), tool: fc.string(), arguments: fc.jsonValue() }, { requiredKeys: [] })
              .filter((d) => !(d.run_id !== undefined && d.call_id !== undefined && d.tool !== undefined && isPlainObject(d.arguments))),
          })
          .map((v) => JSON.stringify(v)),
      );
      const before = await stored();
      await fc.assert(
        fc.asyncProperty(jsonish, fc.boolean(), fc.option(fc.string(), { nil: undefined }), async (body, signIt, badTimestamp) => {
          const r = await post(body, signIt ? { timestamp: badTimestamp } : { signature: badTimestamp ?? "v1,x" });
          expect(r.status).toBeGreaterThanOrEqual(400);
          expect(r.status).toBeLessThan(500);
        }),
        { numRuns: 60 },
      );
      expect(await stored()).toEqual(before);
    });

    it("refuses each lossy-parsing class with 422 invalid-request, stores nothing, and echoes no value", async () => {
      const cases: Array<[string, string]> = [
        ["duplicate key", '{"amount":10,"to":"AC-1","amount":1000000}'],
        ["duplicate key, escaped and deep", '{"lines":[{"sku":"x","\\u0073ku":"y"}]}'],
        ["duplicate __proto__", '{"__proto__":{"a":1},"__proto__":{"b":2}}'],
        ["integer beyond 2^53-1", '{"amount":9007199254740993}'],
        ["negative integer beyond", '{"amount":-123456789012345678901234567890}'],
        ["non-finite", '{"amount":1e400}'],
        ["precision a double loses", '{"amount":9007199254740993.0}'],
        ["lone surrogate key", '{"\\ud800SECRETKEY":1}'],
        ["lone surrogate value", '{"note":"SECRETVALUE\\udfff"}'],
        ["reversed pair", '{"note":"\\ude00\\ud83d"}'],
      ];
      for (const [name, args] of cases) {
        const before = await stored();
        const r = await post(bodyWith(args));
        expect([r.status, r.body.error], name).toEqual([422, "invalid-request"]);
        const issues = r.body.issues as Array<{ path: string; message: string }>;
        expect(issues, name).toHaveLength(1);
        expect(issues[0]!.path, name).toMatch(/^data\.arguments\.#\d/);
        const text = JSON.stringify(r.body);
        for (const leak of ["1000000", "9007199254740993", "1e400", "SECRET", "ud800", "123456789"]) expect(text, name).not.toContain(leak);
        expect(await stored(), name).toEqual(before);
      }
      // Duplicates in the envelope too.
      const dupEnvelope = bodyWith('{"a":1}').replace('"call_id":"c1"', '"call_id":"c1","call_id":"c2"');
      const r = await post(dupEnvelope);
      expect([r.status, r.body.issues]).toEqual([422, [{ path: "data.call_id", message: "duplicate object key" }]]);
    });

    it("keeps __proto__: stored in the redacted copy, digested as the sender digested it", async () => {
      const s = salt();
      const argsText = '{"__proto__":{"to":"ana@example.com","role":"admin"},"amount":10}';
      const clientDigest = argsDigest(JSON.parse(argsText) as Record<string, unknown>, s);
      expect(clientDigest).toBe(jcsDigest('{"__proto__":{"role":"admin","to":"ana@example.com"},"amount":10}', s));
      const r = await post(bodyWith(argsText, { args_salt: s, args_digest: clientDigest }));
      expect(r.status).toBe(201);
      expect(r.body.args_digest).toBe(clientDigest);
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } });
      expect(row.argsDigest).toBe(clientDigest);
      const shown = JSON.parse(row.redactedArgs) as Record<string, unknown>;
      expect(Object.keys(shown)).toEqual(["__proto__", "amount"]);
      expect(row.redactedArgs).toContain('"role":"admin"');
      expect(row.redactedArgs).not.toContain("ana@example.com");
      // Unsalted too: the digest of the arguments without __proto__ is refused as a mismatch.
      const plain = await post(bodyWith(argsText, { args_digest: argsDigest({ amount: 10 }) }));
      expect([plain.status, plain.body.error]).toEqual([422, "digest-mismatch"]);
    });

    it("keeps integers up to 2^53-1 and exact doubles as sent", async () => {
      const argsText = '{"max":9007199254740991,"min":-9007199254740991,"big":1e21,"tenth":0.1,"tiny":5e-324}';
      const r = await post(bodyWith(argsText));
      expect(r.status).toBe(201);
      const row = await db.approval.findUniqueOrThrow({ where: { id: String(r.body.approval_id) } });
      expect(JSON.parse(row.redactedArgs)).toEqual({ max: 9007199254740991, min: -9007199254740991, big: 1e21, tenth: 0.1, tiny: 5e-324 });
      expect(r.body.args_digest).toBe(jcsDigest('{"big":1e+21,"max":9007199254740991,"min":-9007199254740991,"tenth":0.1,"tiny":5e-324}'));
    });
  });
}
