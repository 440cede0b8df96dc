// Each access rule the queue checks in SQL has a TypeScript twin, and the two
// must agree (issue 12). On generated users (roles including admin, auditor
// and none; disabled or not; linked identities), requests (required roles,
// requester given as some spelling of a user's or identity's address, or of
// someone else, or absent; pending, expired, decided) and votes, written to a
// real database, for every (user, request):
//   - canActSql (lib/reviews/eligibility-sql.ts), for a pending unexpired
//     request, holds iff eligibility() (lib/reviews/eligibility.ts) says ok;
//   - visibleSql (lib/reviews/visibility-sql.ts) holds iff visibleTo();
//   - findQueue() puts the request in "can act on" iff eligible, and in some
//     section iff visible, once: with few required-role lists (the partition
//     form) and with more than MAX_ROLE_LISTS (the one-query form).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { requesterVariant } from "../identity/requester-variants";

const REVIEW_ROLES = ["reviewer", "payments", "ops"] as const;
const USER_ROLES = [...REVIEW_ROLES, "admin", "auditor"];
const REQUIRED_ROLES = [...REVIEW_ROLES, "admin"];
const STATES = ["pending", "expires-now", "expired-unswept", "approved", "denied", "expired", "cancelled"] as const;
/** Expiry relative to "now": exactly now counts as expired, as everywhere (expires_at <= now). */
const EXPIRES_IN_MS: Record<(typeof STATES)[number], number> = {
  pending: 3_600_000,
  "expires-now": 0,
  "expired-unswept": -1000,
  approved: 3_600_000,
  denied: 3_600_000,
  expired: -1000,
  cancelled: 3_600_000,
};
const STRANGER = "someone.else@elsewhere.example";

type IdentitySpec = { email: boolean; subjectIsAddress: boolean };
type PersonSpec = { email: string; roles: string[]; disabled: boolean; identities: IdentitySpec[] };
type RequestSpec = { roles: string[]; requestedBy: string | undefined; state: (typeof STATES)[number] };
type World = { people: PersonSpec[]; requests: RequestSpec[]; votes: Array<[number, number]> };

const identityEmail = (p: PersonSpec, j: number) => p.email.replace("@", `.alt${j}@`);
const identitySubject = (p: PersonSpec, j: number, spec: IdentitySpec) =>
  spec.subjectIsAddress ? p.email.replace(/@.*/, `.sub${j}@idp.example.com`) : `sub-${p.email.replace(/@.*/, "")}-${j}`;

/** Every address a generated person is known by: their email, identity emails, subjects that are addresses. */
function knownAddresses(people: PersonSpec[]): string[] {
  return people.flatMap((p) => [
    p.email,
    ...p.identities.flatMap((spec, j) => [
      ...(spec.email ? [identityEmail(p, j)] : []),
      ...(spec.subjectIsAddress ? [identitySubject(p, j, spec)] : []),
    ]),
  ]);
}

// Forty generated worlds, each written row by row and queried per person: close
// to the default minute on PostgreSQL when every core is busy.
const PROPERTY_TIMEOUT_MS = 240_000;

const person = (local: string): fc.Arbitrary<PersonSpec> =>
  fc.record({
    email: fc.constantFrom("example.com", "corp.example").map((d) => `${local}@${d}`),
    roles: fc.subarray(USER_ROLES),
    disabled: fc.boolean(),
    identities: fc.array(fc.record({ email: fc.boolean(), subjectIsAddress: fc.boolean() }), { maxLength: 2 }),
  });

const world: fc.Arbitrary<World> = fc
  .uniqueArray(fc.stringMatching(/^[a-z]{1,5}$/), { minLength: 1, maxLength: 4 })
  .chain((locals) => fc.tuple(...locals.map(person)))
  .chain((people) => {
    const requester = fc.oneof(
      fc.constantFrom(...knownAddresses(people)).chain((a) => requesterVariant(a)),
      fc.constant(STRANGER),
      fc.constant(undefined),
    );
    const request = fc.record({
      roles: fc.shuffledSubarray(REQUIRED_ROLES, { minLength: 1 }),
      requestedBy: requester,
      state: fc.constantFrom(...STATES),
    });
    return fc.record({
      people: fc.constant(people),
      requests: fc.array(request, { minLength: 1, maxLength: 6 }),
      votes: fc.array(fc.tuple(fc.nat(people.length - 1), fc.nat(5)), { maxLength: 8 }),
    });
  });

export function rulesInSqlSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`the SQL forms of eligibility and visibility agree with the TypeScript rules (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let newId: typeof import("@/lib/ids").newId;
    let requesterKey: typeof import("@/lib/identity/requester-key").requesterKey;
    let eligibility: typeof import("@/lib/reviews/eligibility").eligibility;
    let vis: typeof import("@/lib/reviews/visibility");
    let eligibilitySql: typeof import("@/lib/reviews/eligibility-sql");
    let visibleSql: typeof import("@/lib/reviews/visibility-sql").visibleSql;
    let dialect: typeof import("@/lib/queue/dialect").dialect;
    let findQueue: typeof import("@/lib/queue/find-queue").findQueue;
    let Prisma: typeof import("@/lib/db/client").Prisma;
    let service: Awaited<ReturnType<typeof f.makeService>>;

    beforeAll(async () => {
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      ({ newId } = await import("@/lib/ids"));
      ({ requesterKey } = await import("@/lib/identity/requester-key"));
      ({ eligibility } = await import("@/lib/reviews/eligibility"));
      vis = await import("@/lib/reviews/visibility");
      eligibilitySql = await import("@/lib/reviews/eligibility-sql");
      ({ visibleSql } = await import("@/lib/reviews/visibility-sql"));
      ({ dialect } = await import("@/lib/queue/dialect"));
      ({ findQueue } = await import("@/lib/queue/find-queue"));
      ({ Prisma } = await import("@/lib/db/client"));
      service = await f.makeService();
    });
    afterAll(async () => ctx?.close());

    /** Writes the world under a fresh tool name; returns what the checks need and how to remove it. */
    async function write(w: World, now: Date) {
      const tool = `gen.${f.uid()}`;
      const users: string[] = [];
      for (const p of w.people) {
        const user = await f.makeUser(p.roles, p.email);
        users.push(user.id);
        if (p.disabled) await ctx.db.user.update({ where: { id: user.id }, data: { disabledAt: now } });
        for (const [j, spec] of p.identities.entries()) {
          await ctx.db.identity.create({
            data: {
              id: newId("idn"),
              userId: user.id,
              issuer: "https://idp.example.com",
              subject: identitySubject(p, j, spec),
              email: spec.email ? identityEmail(p, j) : null,
            },
          });
        }
      }
      const approvals: string[] = [];
      for (const [i, r] of w.requests.entries()) {
        const pending = r.state === "pending" || r.state === "expires-now" || r.state === "expired-unswept";
        const expiresAt = new Date(now.getTime() + EXPIRES_IN_MS[r.state]);
        const a = await ctx.db.approval.create({
          data: {
            id: newId("apr"),
            serviceId: service.auth.id,
            runId: `run-${f.uid()}`,
            callId: "c1",
            tool,
            effects: "write",
            requestedBy: r.requestedBy ?? null,
            requesterKey: r.requestedBy === undefined ? null : requesterKey(r.requestedBy),
            argsDigest: `sha256:${"0".repeat(64)}`,
            redactedArgs: "{}",
            policyName: "generated",
            requiredRoles: JSON.stringify(r.roles),
            quorum: 1,
            ttlSeconds: 3600,
            status: pending ? "pending" : r.state,
            createdAt: new Date(now.getTime() - (i + 1) * 1000),
            expiresAt,
            decidedAt: pending ? null : new Date(now.getTime() - 500),
          },
        });
        approvals.push(a.id);
      }
      const votes = new Map<string, Array<{ reviewerId: string }>>(approvals.map((id) => [id, []]));
      const pairs = [...new Set(w.votes.filter(([, r]) => r < approvals.length).map((v) => v.join(":")))].map(
        (s) => s.split(":").map(Number) as [number, number],
      );
      for (const [u, r] of pairs) {
        await ctx.db.review.create({
          data: { id: newId("rev"), approvalId: approvals[r]!, reviewerId: users[u]!, reviewerEmail: w.people[u]!.email, decision: "approve" },
        });
        votes.get(approvals[r]!)!.push({ reviewerId: users[u]! });
      }
      const remove = async () => {
        await ctx.db.review.deleteMany({ where: { approvalId: { in: approvals } } });
        await ctx.db.approval.deleteMany({ where: { id: { in: approvals } } });
        await ctx.db.user.deleteMany({ where: { id: { in: users } } });
      };
      return { tool, users, approvals, votes, remove };
    }

    async function idsWhere(tool: string, condition: import("@/lib/db/client").Prisma.Sql): Promise<Set<string>> {
      const rows = await ctx.db.$queryRaw<Array<{ id: string }>>`SELECT a.id FROM approvals a WHERE a.tool = ${tool} AND ${condition}`;
      return new Set(rows.map((r) => r.id));
    }

    async function checkAgreement(w: World) {
      const now = new Date();
      const written = await write(w, now);
      try {
        const rows = await ctx.db.approval.findMany({ where: { tool: written.tool } });
        for (const userId of written.users) {
          const viewer = (await vis.loadViewer(userId))!;
          const eligible = new Set(rows.filter((a) => eligibility(a, viewer, written.votes.get(a.id)!, now).ok).map((a) => a.id));
          const visible = new Set(rows.filter((a) => vis.visibleTo(viewer, a)).map((a) => a.id));
          const where = `${viewer.email} (roles ${JSON.stringify(viewer.roles.map((r) => r.role))}, ${viewer.disabledAt ? "disabled" : "active"})`;

          // The SQL conditions themselves.
          const sv = eligibilitySql.sqlViewer(viewer);
          expect(
            await idsWhere(written.tool, Prisma.sql`${dialect().pendingAt(now)} AND ${eligibilitySql.canActSql(sv)}`),
            `canActSql for ${where}`,
          ).toEqual(eligible);
          expect(await idsWhere(written.tool, visibleSql(sv)), `visibleSql for ${where}`).toEqual(visible);

          // The queue built on them: "can act on" iff eligible; shown (once) iff visible.
          const queue = await findQueue(userId, { tool: written.tool }, { pageSize: 100, now });
          const shown = [queue.canAct!, queue.waiting!, queue.decided!].flatMap((s) => s.rows.map((r) => r.id));
          expect(new Set(queue.canAct!.rows.map((r) => r.id)), `can act on, for ${where}`).toEqual(eligible);
          expect(new Set(shown), `shown to ${where}`).toEqual(visible);
          expect(shown, `each request once, for ${where}`).toHaveLength(visible.size);
          expect(queue.canAct!.count + queue.waiting!.count + queue.decided!.count, `counts for ${where}`).toBe(visible.size);
        }
      } finally {
        await written.remove();
      }
    }

    it(
      "agree on generated users, requests and votes (partition form of the queue)",
      async () => {
        await fc.assert(fc.asyncProperty(world, checkAgreement), { numRuns: 40 });
      },
      PROPERTY_TIMEOUT_MS,
    );

    it(
      "agree with more required-role lists pending than the partition takes (one-query form of the queue)",
      async () => {
        const { MAX_ROLE_LISTS } = await import("@/lib/queue/pending-sections");
        for (let i = 0; i <= MAX_ROLE_LISTS; i++) {
          await ctx.db.approval.create({
            data: {
              id: newId("apr"),
              serviceId: service.auth.id,
              runId: `filler-${f.uid()}`,
              callId: "c1",
              tool: "filler.op",
              effects: "write",
              argsDigest: `sha256:${"0".repeat(64)}`,
              redactedArgs: "{}",
              policyName: "generated",
              requiredRoles: JSON.stringify([`filler-${i}`]),
              quorum: 1,
              ttlSeconds: 3600,
              expiresAt: new Date(Date.now() + 3_600_000),
            },
          });
        }
        await fc.assert(fc.asyncProperty(world, checkAgreement), { numRuns: 40 });
      },
      PROPERTY_TIMEOUT_MS,
    );
  });
}
