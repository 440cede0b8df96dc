// One rule on every path (docs/security.md "One rule on every
// path"): every decision path asks the one authority check at the moment its
// decision takes effect, so each refuses the same things. Rows are the
// decision paths the code lists (DECISION_PATHS in lib/reviews/authority.ts:
// a path added there without a row here fails the first test), columns the
// refusals. Every cell sets up a world where the path would decide, then
// makes one thing untrue, then tries: it must refuse, and decide and record
// nothing. Real database, real domain functions, real WebAuthn and Slack
// payloads (the Slack client against the local stand-in).
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DECISION_PATHS } from "@/lib/reviews/authority";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { softAuthenticator } from "../helpers/soft-authenticator";
import { slackApi, type SlackApi } from "../slack/slack-api";
import { buttonPress } from "../slack/sign-interaction";

type Lib = {
  ingest: typeof import("@/lib/approvals/ingest-approval").ingestApproval;
  schema: typeof import("@/lib/approvals/schemas").approvalRequestedSchema;
  recordReview: typeof import("@/lib/reviews/record-review").recordReview;
  beginPasskeyVote: typeof import("@/lib/reviews/record-review").beginPasskeyVote;
  reviewRun: typeof import("@/lib/runs/run-review").reviewRun;
  proposeRevision: typeof import("@/lib/revisions/propose-revision").proposeRevision;
  standing: typeof import("@/lib/standing/standing-approvals");
  handleInteraction: typeof import("@/lib/slack/interactions").handleInteraction;
  ACTION: typeof import("@/lib/slack/blocks").ACTION;
  setPolicy: typeof import("@/lib/policies/set-policy").setPolicy;
  disableUser: typeof import("@/lib/users/disable-user").disableUser;
  revokeRole: typeof import("@/lib/users/roles").revokeRole;
  recordPageServed: typeof import("@/lib/reviews/review-views").recordPageServed;
  escalateApproval: typeof import("@/lib/notifications/escalate").escalateApproval;
  inTransaction: typeof import("@/lib/db/transaction").inTransaction;
  cancelApproval: typeof import("@/lib/approvals/cancel-approval").cancelApproval;
  relyingParty: typeof import("@/lib/passkeys/relying-party").relyingParty;
  verifyChain: typeof import("@/lib/audit/verify-chain").verifyChain;
  newId: typeof import("@/lib/ids").newId;
};

type Fixtures = typeof import("../helpers/fixtures");
type Service = Awaited<ReturnType<Fixtures["makeService"]>>;
type User = { id: string; email: string };

/** The spellings of one address that name the same requester (docs/security.md): one run of the requester cell each. */
function requesterSpellings(email: string): string[] {
  const [local, domain] = email.split("@") as [string, string];
  const fullWidth = [...local].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join("");
  return [
    email.toUpperCase(),
    `${local}+refunds@${domain}`,
    `Ana Example <${email}>`,
    `mailto:${email}`,
    `${email}.`,
    // Cyrillic а in place of the Latin a (the local part starts with "ana").
    `\u0430${local.slice(1)}@${domain}`,
    `${fullWidth}@${domain}`,
    `  ${email}\u00a0`,
  ];
}

/** What a world looks like for one cell: one service, one tool, one policy, its roles. */
type World = {
  service: Service;
  tool: string;
  role: string;
  escalationRole: string;
  policy: Parameters<Lib["setPolicy"]>[0];
  /** A reviewer other than the actor (proposes, decides, revises). */
  other: User;
};

type PrepareOptions = {
  /** The requester cell: how the subject's requester spells the actor (or, for a revision, a victim the actor comes to be known as). */
  requester?: (email: string) => string;
  /** The escalation cell: a path whose decision starts from a request (a proposal, a source) escalates it first. */
  escalate?: boolean;
};

/** A path, ready to decide: the state just before the decision, and the ways a cell can change it. */
type Attempt = {
  /** The request whose page the actor opened, if any. */
  pageOf: string | null;
  /** Make the subject expired / already decided. */
  expire(): Promise<void>;
  decide(): Promise<void>;
  /** The decision itself; resolves whatever happens (a refusal may be an exception, a message or a status). */
  run(): Promise<void>;
  /** After run(): whether anything was decided or recorded by the actor. */
  tookEffect(): Promise<boolean>;
};

type Driver = { quorum: number; requirePasskey?: boolean; prepare(w: World, actor: User, opts: PrepareOptions): Promise<Attempt> };

const CELLS = [
  "requester (each §19 spelling)",
  "disabled account",
  "role revoked after the page opened",
  "time-bound role ended after the page opened",
  "policy roles changed",
  "escalation-only role on a non-escalated request",
  "pace rule not met",
  "request expired",
  "already decided",
] as const;
type Cell = (typeof CELLS)[number];

export function authorityParitySuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`one rule on every decision path (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: Fixtures;
    let lib: Lib;
    let slackStandIn: SlackApi;
    const env: Record<string, string | undefined> = {};

    beforeAll(async () => {
      // The Slack path talks to the local stand-in through Slack's own client.
      slackStandIn = await slackApi();
      for (const [k, v] of Object.entries({
        SLACK_BOT_TOKEN: slackStandIn.token,
        SLACK_SIGNING_SECRET: "paritysigningsecret0123456789ab",
        SLACK_API_URL: slackStandIn.url,
        SLACK_TEAM_ID: "T0TEST",
      })) {
        env[k] = process.env[k];
        process.env[k] = v;
      }
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      const rr = await import("@/lib/reviews/record-review");
      lib = {
        ingest: (await import("@/lib/approvals/ingest-approval")).ingestApproval,
        schema: (await import("@/lib/approvals/schemas")).approvalRequestedSchema,
        recordReview: rr.recordReview,
        beginPasskeyVote: rr.beginPasskeyVote,
        reviewRun: (await import("@/lib/runs/run-review")).reviewRun,
        proposeRevision: (await import("@/lib/revisions/propose-revision")).proposeRevision,
        standing: await import("@/lib/standing/standing-approvals"),
        handleInteraction: (await import("@/lib/slack/interactions")).handleInteraction,
        ACTION: (await import("@/lib/slack/blocks")).ACTION,
        setPolicy: (await import("@/lib/policies/set-policy")).setPolicy,
        disableUser: (await import("@/lib/users/disable-user")).disableUser,
        revokeRole: (await import("@/lib/users/roles")).revokeRole,
        recordPageServed: (await import("@/lib/reviews/review-views")).recordPageServed,
        escalateApproval: (await import("@/lib/notifications/escalate")).escalateApproval,
        inTransaction: (await import("@/lib/db/transaction")).inTransaction,
        cancelApproval: (await import("@/lib/approvals/cancel-approval")).cancelApproval,
        relyingParty: (await import("@/lib/passkeys/relying-party")).relyingParty,
        verifyChain: (await import("@/lib/audit/verify-chain")).verifyChain,
        newId: (await import("@/lib/ids")).newId,
      };
    });
    afterAll(async () => {
      await ctx?.close();
      await slackStandIn?.close();
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });

    const ARGS = { account: "AC-1", amount: 40, currency: "EUR" };

    async function send(w: World, data: { requested_by?: string; call_id?: string; run_id?: string; revises?: string; arguments?: object }) {
      const event = lib.schema.parse({
        type: "approval.requested",
        data: { run_id: `run_${randomUUID()}`, call_id: "c1", tool: w.tool, arguments: ARGS, ...data },
      });
      return (await lib.ingest(w.service.auth, `msg_${randomUUID()}`, event)).body;
    }
    const row = (id: string) => ctx.db.approval.findUniqueOrThrow({ where: { id } });
    const reviewsBy = (approvalId: string, reviewerId: string) => ctx.db.review.count({ where: { approvalId, reviewerId } });
    const expireRequest = (id: string) =>
      ctx.db.approval.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } }).then(() => undefined);
    const cancel = (w: World, id: string) => lib.cancelApproval(w.service.auth, id).then(() => undefined);
    const settle = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => {
          // A refusal is an AppError with a code; anything else is a bug in the path.
          if (!(e instanceof Error && "code" in e)) throw e;
        },
      );
    const viewPage = (approvalId: string, userId: string) => lib.recordPageServed({ approvalId, userId, truncated: false });
    const escalate = (id: string) => lib.inTransaction((tx) => lib.escalateApproval(tx, id));

    /** A plain vote on a pending request, through `vote`. */
    function voteDriver(vote: (w: World, actor: User, approvalId: string) => Promise<void>, extra: Partial<Driver> = {}): Driver {
      return {
        quorum: 1,
        ...extra,
        async prepare(w, actor, opts) {
          const a = await send(w, opts.requester ? { requested_by: opts.requester(actor.email) } : {});
          await viewPage(a.approval_id, actor.id);
          return {
            pageOf: a.approval_id,
            expire: () => expireRequest(a.approval_id),
            decide: () => cancel(w, a.approval_id),
            run: () => settle(vote(w, actor, a.approval_id)),
            tookEffect: async () => (await reviewsBy(a.approval_id, actor.id)) > 0 || (await row(a.approval_id)).status === "approved",
          };
        },
      };
    }

    // Typed by the code's own list: a path added to DECISION_PATHS without a row here does not compile.
    const PATHS: Record<(typeof DECISION_PATHS)[number], Driver> = {
      browser: voteDriver(async (_w, actor, approvalId) => void (await lib.recordReview(actor.id, { approvalId, decision: "approve" }))),

      slack: voteDriver(async (_w, actor, approvalId) => {
        // The actor's Slack account is linked already: the click goes straight to the vote.
        const slackUser = `U${randomUUID().replace(/-/g, "").slice(0, 10).toUpperCase()}`;
        await ctx.db.user.update({ where: { id: actor.id }, data: { slackUserId: slackUser, slackLinkedAt: new Date() } });
        const answer = await lib.handleInteraction(
          buttonPress({ user: slackUser, actionId: lib.ACTION.approve, value: approvalId, channel: "CPARITY", messageTs: "1700000000.000100" }),
        );
        expect(answer.status).toBe(200);
      }),

      batch: voteDriver(async (w, actor, approvalId) => {
        const a = await row(approvalId);
        await lib.reviewRun(actor.id, { service: w.service.slug, runId: a.runId, decision: "approve", approvalIds: [approvalId] });
      }),

      passkey: {
        quorum: 1,
        requirePasskey: true,
        async prepare(w, actor, opts) {
          const key = softAuthenticator(lib.relyingParty());
          await ctx.db.passkey.create({
            data: {
              id: lib.newId("pk"),
              userId: actor.id,
              credentialId: key.credentialId,
              publicKey: key.publicKeyCose,
              alg: -7,
              counter: 0,
              transports: "[]",
              name: "parity key",
              createdAt: new Date(),
            },
          });
          const a = await send(w, opts.requester ? { requested_by: opts.requester(actor.email) } : {});
          await viewPage(a.approval_id, actor.id);
          const vote = { approvalId: a.approval_id, decision: "approve" as const };
          // Signed while the page is open, when the actor may still decide (where they may): the cell changes things after.
          const sign = async () => {
            const begun = await lib.beginPasskeyVote(actor.id, vote);
            return { nonce: begun.nonce, response: key.assert(begun.options.challenge) };
          };
          const early = await sign().catch(() => null);
          return {
            pageOf: a.approval_id,
            expire: () => expireRequest(a.approval_id),
            decide: () => cancel(w, a.approval_id),
            run: () => settle((async () => lib.recordReview(actor.id, { ...vote, passkey: early ?? (await sign()) }))()),
            tookEffect: async () => (await reviewsBy(a.approval_id, actor.id)) > 0 || (await row(a.approval_id)).status === "approved",
          };
        },
      },

      revision: {
        quorum: 1,
        async prepare(w, actor, opts) {
          const victim = `ana-victim-${f.uid()}@example.com`;
          const original = await send(w, opts.requester ? { requested_by: opts.requester(victim) } : {});
          if (opts.escalate) await escalate(original.approval_id);
          await viewPage(original.approval_id, actor.id);
          const patch = [{ op: "replace" as const, path: "/amount", value: 5 }];
          await lib.proposeRevision(actor.id, { approvalId: original.approval_id, patch, reason: "smaller" });
          // The requester cell: the proposer comes to be known as the requester (a linked identity).
          if (opts.requester) {
            await ctx.db.identity.create({
              data: { id: lib.newId("idn"), userId: actor.id, issuer: "https://idp.example.com", subject: `sub-${f.uid()}`, email: victim },
            });
          }
          const source = await row(original.approval_id);
          const resend = (callId: string) =>
            send(w, {
              run_id: source.runId,
              call_id: callId,
              requested_by: source.requestedBy ?? undefined,
              arguments: { ...ARGS, amount: 5 },
              revises: original.approval_id,
            });
          let revisionId: string | null = null;
          return {
            pageOf: original.approval_id,
            expire: () => expireRequest(original.approval_id),
            // The proposal was carried over once already: a second revision of it is refused.
            decide: async () => void (await resend("first-revision")),
            run: () =>
              settle(
                resend("c1.r1").then((r) => {
                  revisionId = r.approval_id;
                }),
              ),
            tookEffect: async () =>
              revisionId !== null && ((await reviewsBy(revisionId, actor.id)) > 0 || (await row(revisionId)).status === "approved"),
          };
        },
      },

      "standing.propose": {
        quorum: 1,
        async prepare(w, actor, opts) {
          const source = await send(w, opts.requester ? { requested_by: opts.requester(actor.email) } : {});
          if (opts.escalate) await escalate(source.approval_id);
          await viewPage(source.approval_id, actor.id);
          return {
            pageOf: source.approval_id,
            expire: () => expireRequest(source.approval_id),
            decide: () => cancel(w, source.approval_id),
            run: () =>
              settle(
                lib.standing.proposeStanding(actor.id, {
                  approvalId: source.approval_id,
                  pins: [{ path: "/account", op: "eq" }],
                  expiresInSeconds: 600,
                  reason: "calls like this one",
                }),
              ),
            tookEffect: async () => (await ctx.db.standingApproval.count({ where: { sourceApprovalId: source.approval_id } })) > 0,
          };
        },
      },

      "standing.approve": {
        quorum: 2,
        async prepare(w, actor, opts) {
          const source = await send(w, opts.requester ? { requested_by: opts.requester(actor.email) } : {});
          if (opts.escalate) await escalate(source.approval_id);
          await viewPage(source.approval_id, w.other.id);
          await viewPage(source.approval_id, actor.id);
          const proposed = await lib.standing.proposeStanding(w.other.id, {
            approvalId: source.approval_id,
            pins: [{ path: "/account", op: "eq" }],
            expiresInSeconds: 600,
            reason: "calls like this one",
          });
          expect(proposed.status).toBe("proposed");
          return {
            pageOf: source.approval_id,
            expire: () =>
              ctx.db.standingApproval.update({ where: { id: proposed.id }, data: { expiresAt: new Date(Date.now() - 1000) } }).then(() => undefined),
            decide: async () => {
              const third = await f.makeUser([w.role]);
              await viewPage(source.approval_id, third.id);
              await lib.standing.approveStanding(third.id, proposed.id);
            },
            run: () => settle(lib.standing.approveStanding(actor.id, proposed.id)),
            tookEffect: async () => (await ctx.db.standingVote.count({ where: { standingId: proposed.id, reviewerId: actor.id } })) > 0,
          };
        },
      },

      "standing.apply": {
        quorum: 1,
        async prepare(w, actor, opts) {
          const source = await send(w, {});
          await viewPage(source.approval_id, actor.id);
          const s = await lib.standing.proposeStanding(actor.id, {
            approvalId: source.approval_id,
            pins: [{ path: "/account", op: "eq" }],
            expiresInSeconds: 600,
            reason: "calls like this one",
          });
          expect(s.status).toBe("active");
          let decided: string | null = null;
          return {
            pageOf: source.approval_id,
            expire: () =>
              ctx.db.standingApproval.update({ where: { id: s.id }, data: { expiresAt: new Date(Date.now() - 1000) } }).then(() => undefined),
            decide: async () => void (await lib.standing.revokeStanding("cli", s.id)),
            // The next call like the source: the requester cell sends it on the actor's behalf.
            run: async () => {
              const next = await send(w, opts.requester ? { requested_by: opts.requester(actor.email) } : {});
              decided = next.status === "approved" ? next.approval_id : null;
              expect((await row(next.approval_id)).status).toBe(next.status);
            },
            tookEffect: async () => decided !== null || (await ctx.db.standingApproval.findUniqueOrThrow({ where: { id: s.id } })).uses > 0,
          };
        },
      },
    };

    async function makeWorld(driver: Driver): Promise<World> {
      const service = await f.makeService();
      const tool = `parity.${f.uid()}`;
      const role = `pr-${f.uid()}`;
      const escalationRole = `pe-${f.uid()}`;
      const policy = {
        name: `parity-${f.uid()}`,
        tool,
        roles: [role],
        quorum: driver.quorum,
        ttl: 3600,
        escalate_after: 60,
        escalate_to_roles: [escalationRole],
        // A policy that requires passkeys allows no standing approvals.
        standing_max_ttl: driver.requirePasskey ? 0 : 3600,
        require_passkey: driver.requirePasskey ?? false,
      };
      await lib.setPolicy(policy, "cli", { anyway: true });
      const other = await f.makeUser([role]);
      return { service, tool, role, escalationRole, policy, other };
    }

    /** One cell: a world where the path would decide, one thing made untrue, then the attempt. Returns whether it took effect. */
    async function tryCell(driver: Driver, cell: Cell, requester?: (email: string) => string): Promise<boolean> {
      const w = await makeWorld(driver);
      const escalationCell = cell === "escalation-only role on a non-escalated request";
      // Local parts start with "ana" (the confusable spelling replaces its a).
      const actor = await f.makeUser(escalationCell ? [w.role, w.escalationRole] : [w.role], `ana-${f.uid()}@example.com`);
      const attempt = await driver.prepare(w, actor, { requester, escalate: escalationCell });
      switch (cell) {
        case "requester (each §19 spelling)":
          break;
        case "disabled account":
          await lib.disableUser(actor.email, "cli");
          break;
        case "role revoked after the page opened":
          await lib.revokeRole({ email: actor.email, role: w.role }, "cli");
          break;
        case "time-bound role ended after the page opened":
          // Its end passed; no sweep has run (the row is still there): the check's own clock ends it.
          await ctx.db.userRole.update({
            where: { userId_role_viaGroup: { userId: actor.id, role: w.role, viaGroup: "" } },
            data: { expiresAt: new Date(Date.now() - 1000) },
          });
          break;
        case "policy roles changed":
          await lib.setPolicy({ ...w.policy, roles: [`${w.role}-now`] }, "cli", { anyway: true });
          break;
        case "escalation-only role on a non-escalated request":
          // What is left is the escalation role; what they decide was never escalated (or, from a proposal, is a new request).
          await lib.revokeRole({ email: actor.email, role: w.role }, "cli");
          break;
        case "pace rule not met":
          // The page was opened a moment ago; the policy now asks for ten minutes on it.
          await lib.setPolicy({ ...w.policy, min_review_seconds: 600 }, "cli", { anyway: true });
          break;
        case "request expired":
          await attempt.expire();
          break;
        case "already decided":
          await attempt.decide();
          break;
      }
      await attempt.run();
      return attempt.tookEffect();
    }

    it("has a row for every decision path the code lists", () => {
      expect(Object.keys(PATHS).sort()).toEqual([...DECISION_PATHS].sort());
    });

    it("each path decides when nothing is wrong (the cells below start from a world where it would)", async () => {
      for (const [name, driver] of Object.entries(PATHS)) {
        const w = await makeWorld(driver);
        const actor = await f.makeUser([w.role], `ana-${f.uid()}@example.com`);
        const attempt = await driver.prepare(w, actor, {});
        await attempt.run();
        expect(await attempt.tookEffect(), name).toBe(true);
      }
    });

    for (const path of DECISION_PATHS) {
      describe(path, () => {
        for (const cell of CELLS) {
          it(`refuses: ${cell}`, async () => {
            const driver = PATHS[path];
            if (cell === "requester (each §19 spelling)") {
              const count = requesterSpellings("ana@example.com").length;
              for (let i = 0; i < count; i++) {
                const spell = (email: string) => requesterSpellings(email)[i]!;
                expect(await tryCell(driver, cell, spell), `${path} as ${JSON.stringify(spell("ana-probe@example.com"))}`).toBe(false);
              }
            } else {
              expect(await tryCell(driver, cell), `${path}: ${cell}`).toBe(false);
            }
          });
        }
      });
    }

    it("leaves an audit chain that verifies", async () => {
      expect(await lib.verifyChain()).toMatchObject({ ok: true });
    });
  });
}
