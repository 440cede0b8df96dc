// Issue 11 "Done when": generated secrets in each docs/security.md class, as they are,
// encoded and split across sibling strings, at random depths, sent over real
// HTTP to the running app, never reach the database (approvals.redacted_args,
// approvals.summary, audit_events.data), the request page a reviewer sees,
// or the server log. And run_id, call_id, environment holding one are
// refused with 422 naming the field, without echoing the value.
// Runs its own instance at LOG_LEVEL=debug, so every line the app can write is seen.
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { signWebhookHeaders } from "@countersign/client";
import { type Provider, PG_TEST_URL, useFreshDatabase } from "../helpers/databases";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { freePort } from "../helpers/ports";
import { signInWithPassword } from "../helpers/sign-in";
import { SELF_EVIDENT, showsPartOf, visible } from "../helpers/secret-checks";
import { encode, encoding, nest, splitAt } from "../helpers/secret-hiding";
import { secretKeyName, secretSample, type SecretSample } from "../helpers/secret-samples";

type Shape = "plain" | "encoded" | "split" | "key";
const shape = fc.constantFrom<Shape>("plain", "encoded", "split", "key");
const nesting = fc.array(fc.constantFrom<"array" | "object">("array", "object"), { maxLength: 4 });

/** The arguments for one generated case, and the strings that must never be seen. */
function buildArguments(
  sample: SecretSample,
  how: Shape,
  enc: Parameters<typeof encode>[1],
  cuts: number[],
  key: string,
  path: Array<"array" | "object">,
) {
  const mustHide = [...sample.secrets];
  let inner: unknown;
  switch (how) {
    case "plain":
      inner = { note: sample.text };
      break;
    case "encoded": {
      const encoded = encode(sample.text, enc);
      inner = { blob: `data ${encoded} end` };
      // Base64 and hex runs are hidden whole; escapes exactly where they spell the secret.
      if (enc === "base64" || enc === "base64url" || enc === "hex") mustHide.push(encoded);
      break;
    }
    case "split": {
      // An email is cut at or after its "@" (a local part next to a name is ambiguous; siblings.ts).
      const secret = sample.kind === "email" ? sample.whole.replace(/^[^@＠]*/, "") : sample.whole;
      const pieces = splitAt(sample.text, secret, cuts);
      inner = cuts.length % 2 === 0 ? { parts: pieces } : Object.fromEntries(pieces.map((p, k) => [`part${k}`, p]));
      break;
    }
    case "key": {
      const value = `keyed-${randomBytes(12).toString("hex")}`;
      inner = { [key]: value };
      mustHide.push(value);
      break;
    }
  }
  return { args: { ...(nest(inner, path) as object), amount: 10 }, mustHide };
}

/** The refusal of a field holding a secret, and every other fixed refusal an id field can get. */
const SECRET_REFUSAL = /^must not contain a secret \(it matches the [a-z0-9_]+ redaction rule\)$/;
const FIXED_REFUSALS = [SECRET_REFUSAL, /^must contain only printable characters$/, /^Too big: expected string to have <=\d+ characters$/];

export function secretsNeverStoredSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`generated secrets never stored or shown (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let app: AppServer;
    let svc: { slug: string; webhook_secret: string };
    let reviewerCookie: string;
    const tag = randomBytes(4).toString("hex");
    const tool = `sec${tag}.send`;
    const seen: string[] = [];

    beforeAll(async () => {
      const secrets = { ...generateSecrets() };
      Object.assign(process.env, secrets);
      ctx = await useFreshDatabase(provider);
      app = await startAppServer({
        port: await freePort(),
        env: {
          ...secrets,
          DATABASE_URL: ctx.url,
          COUNTERSIGN_DATA_DIR: mkdtempSync(join(tmpdir(), "cs-secrets-")),
          AUTH_CREDENTIALS: "1",
          LOG_LEVEL: "debug",
        },
      });
      const f = await import("../helpers/fixtures");
      svc = await f.makeService();
      const role = `sec-${tag}`;
      await f.makePolicy({ tool: `sec${tag}.*`, roles: [role], quorum: 1 });
      const { addUser } = await import("@/lib/users/add-user");
      const password = randomBytes(12).toString("base64url");
      // Not at a domain the generated emails use: the page shows who is signed in.
      const user = await addUser({ email: `rev-${tag}@reviewers.test`, password, roles: [role] }, "cli");
      reviewerCookie = await signInWithPassword(app.baseUrl, user.email, password);
    }, 180_000);

    afterAll(async () => {
      await app?.stop();
      await ctx?.close();
    });

    const post = (data: Record<string, unknown>) => {
      const body = JSON.stringify({ type: "approval.requested", data });
      return fetch(`${app.baseUrl}/api/v1/webhooks/${svc.slug}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...signWebhookHeaders({ secret: svc.webhook_secret, body }) },
        body,
      });
    };

    it("stores, audits, shows and logs every class only redacted (plain, encoded, split, under a secret name)", async () => {
      onTestFailed(() => console.log(`app output:\n${app.output().slice(-4000)}`));
      await fc.assert(
        fc.asyncProperty(
          fc.noBias(secretSample),
          shape,
          encoding,
          fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
          secretKeyName,
          nesting,
          async (sample, how, enc, cuts, key, path) => {
            const { args, mustHide } = buildArguments(sample, how, enc, cuts, key, path);
            seen.push(...mustHide);
            const res = await post({
              run_id: `run_${randomUUID()}`,
              call_id: "c1",
              tool,
              arguments: args,
              summary: `About: ${sample.text}`.slice(0, 2000),
            });
            expect(res.status, await res.clone().text()).toBe(201);
            const { approval_id } = (await res.json()) as { approval_id: string };

            const row = await ctx.db.approval.findUniqueOrThrow({ where: { id: approval_id } });
            const events = await ctx.db.auditEvent.findMany({ where: { approvalId: approval_id } });
            expect(events.length).toBeGreaterThan(0);
            const page = await fetch(`${app.baseUrl}/approvals/${approval_id}`, { headers: { cookie: reviewerCookie } });
            expect(page.status).toBe(200);
            const html = await page.text();
            const places = {
              redacted_args: JSON.parse(row.redactedArgs) as unknown,
              summary: row.summary,
              audit: events.map((e) => ({ type: e.type, actor: e.actor, data: JSON.parse(e.data) as unknown })),
              page: html,
            };
            for (const [place, content] of Object.entries(places)) {
              const text = visible(typeof content === "string" ? content : JSON.stringify(content));
              for (const secret of mustHide) {
                const inJson = JSON.stringify(secret).slice(1, -1);
                // Pages carry markup and scripts: a longer run is asked for there.
                const n = place === "page" ? 10 : 6;
                expect(
                  showsPartOf(text, secret, n) || showsPartOf(text, inJson, n),
                  `${sample.kind}/${how}${how === "encoded" ? `/${enc}` : ""} in ${place}: ${place === "page" ? "" : text.slice(0, 1500)}`,
                ).toBe(false);
              }
            }
          },
        ),
        { numRuns: 90 },
      );
      // Nothing reached the server log either (its lines are JSON: compare both spellings).
      await new Promise((r) => setTimeout(r, 300));
      const log = app.output();
      const leaked = seen.filter((s) => showsPartOf(log, s, 10) || showsPartOf(log, JSON.stringify(s).slice(1, -1), 10));
      expect(leaked).toEqual([]);
    }, 300_000);

    it("refuses run_id, call_id and environment holding a secret: 422 at that path, value not echoed, nothing stored", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.noBias(secretSample).filter((s) => SELF_EVIDENT.has(s.kind)),
          fc.constantFrom("run_id", "call_id", "environment"),
          async (sample, field) => {
            // Ids hold at most 200 characters; a seed phrase cut at 90 may keep fewer than its 12 words.
            const secret = sample.whole.slice(0, sample.kind === "seed_phrase" ? 190 : 90);
            const before = await ctx.db.approval.count();
            const data: Record<string, unknown> = {
              run_id: `run_${randomUUID()}`,
              call_id: "c1",
              tool,
              arguments: { amount: 1 },
              [field]: `x-${secret}`,
            };
            const res = await post(data);
            const body = (await res.json()) as { error: string; issues?: Array<{ path: string; message: string }> };
            expect(res.status, sample.kind).toBe(422);
            expect(body.error).toBe("invalid-request");
            // The whole answer is fixed wording, so nothing of the value is echoed: the secret rule's
            // refusal at that path, and at most the field's other fixed refusals. (A look for parts of
            // the value would find the rules' own words: a seed phrase's "match" in "it matches".)
            expect(Object.keys(body).sort()).toEqual(["error", "issues"]);
            expect(
              body.issues!.some((i) => i.path === `data.${field}` && SECRET_REFUSAL.test(i.message)),
              JSON.stringify(body),
            ).toBe(true);
            for (const issue of body.issues!) {
              expect(issue.path).toBe(`data.${field}`);
              expect(
                FIXED_REFUSALS.some((r) => r.test(issue.message)),
                issue.message,
              ).toBe(true);
            }
            expect(await ctx.db.approval.count()).toBe(before);
          },
        ),
        { numRuns: 40 },
      );
    }, 120_000);

    it("refuses ids holding what an admin's custom rule hides, too", async () => {
      const { addRedactionRule, removeRedactionRule } = await import("@/lib/redaction-rules/manage-rules");
      const name = `employee_${tag}`;
      await addRedactionRule({ name, pattern: "\\bEMP-\\d{5}\\b" }, "cli");
      try {
        for (const field of ["run_id", "call_id", "environment"]) {
          const res = await post({ run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: { amount: 1 }, [field]: "for EMP-12345" });
          const body = (await res.json()) as { error: string; issues?: Array<{ path: string; message: string }> };
          expect(res.status, field).toBe(422);
          expect(body.issues).toEqual([{ path: `data.${field}`, message: `must not contain a secret (it matches the ${name} redaction rule)` }]);
          expect(JSON.stringify(body)).not.toContain("EMP-12345");
        }
        expect((await post({ run_id: `run_${randomUUID()}`, call_id: "c1", tool, arguments: { amount: 1 }, environment: "EMP-1234" })).status).toBe(
          201,
        );
      } finally {
        await removeRedactionRule(name, "cli");
      }
    });
  });
}
