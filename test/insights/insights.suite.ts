// docs/insights.md on a real database and the real app: a seeded history
// (requests, votes and page views at chosen instants, in October 2026, away
// from the "now" of every other test) gives known answers for each chart:
// requests per day by outcome, time to decision p50/p95 by service, tool and
// channel (standing included), expiries per day, per reviewer votes,
// approval rate, median time on the page and the flag for fast destructive
// approvals. The CSV route answers those numbers byte for byte to an admin
// and refuses everyone else; the page explains a bad period instead of failing.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appFor } from "../helpers/app";
import type { Provider } from "../helpers/databases";
import { refusal } from "../helpers/refusal-code";
import { signInWithPassword } from "../helpers/sign-in";

const T = (s: string) => new Date(`2026-10-${s}Z`);
const NOW = T("10T00:00:00");

export function insightsSuite(provider: Provider) {
  const app = appFor(provider);
  describe.runIf(app)(`insights (${provider})`, () => {
    const base = app?.baseUrl ?? "";
    let db: import("@/lib/db/client").Db;
    let ins: typeof import("@/lib/insights/insights");
    let csv: typeof import("@/lib/insights/csv");
    let admin: { id: string; email: string };
    let reviewer: { id: string; email: string };
    let adminCookie = "";
    let reviewerCookie = "";
    let svcA = "";
    let svcB = "";
    const tag = randomBytes(3).toString("hex");
    const people: Record<"alice" | "bob" | "carol" | "dave", { id: string; email: string }> = {} as never;

    beforeAll(async () => {
      const f = await import("../helpers/fixtures");
      ins = await import("@/lib/insights/insights");
      csv = await import("@/lib/insights/csv");
      const { newId } = await import("@/lib/ids");
      const { recordPageServed } = await import("@/lib/reviews/review-views");
      const { addUser } = await import("@/lib/users/add-user");
      db = (await import("@/lib/db/client")).db();
      const password = randomBytes(12).toString("base64url");
      admin = await addUser({ email: `ins-adm-${tag}@example.com`, password, roles: ["admin"] }, "cli");
      reviewer = await addUser({ email: `ins-rev-${tag}@example.com`, password, roles: ["reviewer"] }, "cli");
      adminCookie = await signInWithPassword(base, admin.email, password);
      reviewerCookie = await signInWithPassword(base, reviewer.email, password);
      for (const name of ["alice", "bob", "carol", "dave"] as const) people[name] = await f.makeUser(["reviewer"], `${name}-${tag}@example.com`);
      const a = await f.makeService();
      const b = await f.makeService();
      [svcA, svcB] = [a.slug, b.slug];

      /** One request as history had it: made, decided or not, and the votes that decided it with their pages. */
      const seed = async (
        svc: typeof a,
        o: {
          tool: string;
          destructive?: boolean;
          created: Date;
          status: string;
          decidedAfter?: number;
          expiresAt?: Date;
          standing?: boolean;
          votes?: Array<{ who: keyof typeof people; decision: "approve" | "deny"; at: Date; via: string; servedAt?: Date }>;
        },
      ) => {
        const made = await f.makeApproval(svc, { tool: o.tool, effects: o.destructive ? "destructive" : "write" });
        const id = made.approval_id;
        await db.approval.update({
          where: { id },
          data: {
            createdAt: o.created,
            status: o.status,
            expiresAt: o.expiresAt ?? new Date(o.created.getTime() + 3_600_000),
            decidedAt: o.decidedAfter === undefined ? null : new Date(o.created.getTime() + o.decidedAfter * 1000),
            standingApprovalId: o.standing ? `sta_${tag}` : null,
          },
        });
        for (const v of o.votes ?? []) {
          const p = people[v.who];
          if (v.servedAt) await recordPageServed({ approvalId: id, userId: p.id, truncated: false, now: v.servedAt });
          await db.review.create({
            data: { id: newId("rev"), approvalId: id, reviewerId: p.id, reviewerEmail: p.email, decision: v.decision, createdAt: v.at, via: v.via },
          });
        }
      };
      const at = (d: Date, s: number) => new Date(d.getTime() + s * 1000);

      // Before the period: not counted as a request, but its vote (cast inside the period) is alice's.
      const r0 = T("01T00:00:00");
      await seed(a, {
        tool: "deploy",
        created: at(r0, -1),
        status: "approved",
        decidedAfter: 6,
        votes: [{ who: "alice", decision: "approve", at: at(r0, 5), via: "browser" }],
      });
      // 1 October: two approvals (browser 10 s, Slack 30 s) and a denial (60 s).
      const r1 = T("01T10:00:00");
      await seed(a, {
        tool: "deploy",
        created: r1,
        status: "approved",
        decidedAfter: 10,
        votes: [{ who: "alice", decision: "approve", at: at(r1, 10), via: "browser", servedAt: at(r1, 2) }],
      });
      const r2 = T("01T11:00:00");
      await seed(a, {
        tool: "deploy",
        created: r2,
        status: "approved",
        decidedAfter: 30,
        votes: [{ who: "bob", decision: "approve", at: at(r2, 30), via: "slack" }],
      });
      const r3 = T("01T12:00:00");
      await seed(a, {
        tool: "wipe",
        destructive: true,
        created: r3,
        status: "denied",
        decidedAfter: 60,
        votes: [{ who: "bob", decision: "deny", at: at(r3, 60), via: "browser", servedAt: at(r3, 20) }],
      });
      // 2 October: a batch approval (100 s), a standing approval (0 s), an expiry, a cancellation.
      const r4 = T("02T09:00:00");
      await seed(b, {
        tool: "deploy",
        created: r4,
        status: "approved",
        decidedAfter: 100,
        votes: [{ who: "alice", decision: "approve", at: at(r4, 100), via: "batch" }],
      });
      await seed(b, { tool: "deploy", created: T("02T10:00:00"), status: "approved", decidedAfter: 0, standing: true });
      await seed(b, { tool: "deploy", created: T("02T11:00:00"), status: "expired", expiresAt: T("02T12:00:00") });
      await seed(a, { tool: "deploy", created: T("02T12:00:00"), status: "cancelled" });
      // 3 October: a revised one, a pending one (until next year: the app's sweeper runs on today's clock), one
      // pending past its expiry (expired, whether or not the sweeper got to it), and destructive approvals.
      await seed(a, { tool: "deploy", created: T("03T08:00:00"), status: "revised" });
      await seed(a, { tool: "deploy", created: T("03T09:00:00"), status: "pending", expiresAt: new Date("2027-06-01T00:00:00Z") });
      await seed(a, { tool: "deploy", created: T("03T09:30:00"), status: "pending", expiresAt: T("03T10:00:00") });
      // Carol: 4 destructive approvals, 2, 4 and 9 s after the page (fast) and one at 30 s: flagged.
      for (const [i, onPage] of [2, 4, 9, 30].entries()) {
        const c = T(`03T1${3 + i}:00:00`);
        await seed(a, {
          tool: "wipe",
          destructive: true,
          created: c,
          status: "approved",
          decidedAfter: 60 + onPage,
          votes: [{ who: "carol", decision: "approve", at: at(c, 60 + onPage), via: "browser", servedAt: at(c, 60) }],
        });
      }
      // Dave: 2 fast destructive approvals (1 s, 3 s): fast, but too few to flag.
      for (const [i, onPage] of [1, 3].entries()) {
        const c = T(`03T1${7 + i}:00:00`);
        await seed(a, {
          tool: "wipe",
          destructive: true,
          created: c,
          status: "approved",
          decidedAfter: onPage,
          votes: [{ who: "dave", decision: "approve", at: at(c, onPage), via: "browser", servedAt: c }],
        });
      }
    });
    afterAll(async () => db?.$disconnect());

    const period = () => ins.parsePeriod({ from: "2026-10-01", to: "2026-10-03" }, NOW);
    const compute = () => ins.computeInsights(admin.id, period(), { now: NOW, fastReviewSeconds: 10 });

    it("counts requests per day by outcome (pending past expiry as expired) and expiries by the day they expired", async () => {
      const r = await compute();
      expect(r.period).toEqual({ from: "2026-10-01", to: "2026-10-03", days: 3 });
      expect(r.requestsPerDay).toEqual([
        { day: "2026-10-01", approved: 2, denied: 1, expired: 0, cancelled: 0, revised: 0, pending: 0 },
        { day: "2026-10-02", approved: 2, denied: 0, expired: 1, cancelled: 1, revised: 0, pending: 0 },
        { day: "2026-10-03", approved: 6, denied: 0, expired: 1, cancelled: 0, revised: 1, pending: 1 },
      ]);
      expect(r.expiriesPerDay).toEqual([
        { day: "2026-10-01", expired: 0 },
        { day: "2026-10-02", expired: 1 },
        { day: "2026-10-03", expired: 1 },
      ]);
    });

    it("gives time to decision p50/p95 (nearest rank) by service, tool and channel, standing approvals included", async () => {
      const r = await compute();
      const byKey = Object.fromEntries(r.decisionTime.byService.map((x) => [x.key, x]));
      expect(byKey[svcA]).toEqual({ key: svcA, decided: 9, p50: 60, p95: 90 });
      expect(byKey[svcB]).toEqual({ key: svcB, decided: 2, p50: 0, p95: 100 });
      expect(r.decisionTime.byTool).toEqual([
        { key: "deploy", decided: 4, p50: 10, p95: 100 },
        { key: "wipe", decided: 7, p50: 62, p95: 90 },
      ]);
      expect(r.decisionTime.byChannel).toEqual([
        { key: "batch", decided: 1, p50: 100, p95: 100 },
        { key: "browser", decided: 8, p50: 60, p95: 90 },
        { key: "slack", decided: 1, p50: 30, p95: 30 },
        { key: "standing", decided: 1, p50: 0, p95: 0 },
      ]);
    });

    it("gives each reviewer's votes, approval rate, median time on the page, and flags only the mostly-fast destructive approver", async () => {
      const r = await compute();
      const mine = r.reviewers.filter((x) => x.reviewer.endsWith(`-${tag}@example.com`));
      expect(mine).toEqual([
        {
          reviewer: people.alice.email,
          votes: 3,
          approvals: 3,
          approvalRate: 1,
          medianSecondsOnPage: 8,
          destructiveApprovals: 0,
          fastDestructiveApprovals: 0,
          flagged: false,
        },
        {
          reviewer: people.bob.email,
          votes: 2,
          approvals: 1,
          approvalRate: 0.5,
          medianSecondsOnPage: 40,
          destructiveApprovals: 0,
          fastDestructiveApprovals: 0,
          flagged: false,
        },
        {
          reviewer: people.carol.email,
          votes: 4,
          approvals: 4,
          approvalRate: 1,
          medianSecondsOnPage: 6.5,
          destructiveApprovals: 4,
          fastDestructiveApprovals: 3,
          flagged: true,
        },
        {
          reviewer: people.dave.email,
          votes: 2,
          approvals: 2,
          approvalRate: 1,
          medianSecondsOnPage: 2,
          destructiveApprovals: 2,
          fastDestructiveApprovals: 2,
          flagged: false,
        },
      ]);
      // A stricter threshold: carol's 9 s approval is no longer fast, and 2 of 4 is not more than half.
      const strict = await ins.computeInsights(admin.id, period(), { now: NOW, fastReviewSeconds: 5 });
      expect(strict.reviewers.find((x) => x.reviewer === people.carol.email)).toMatchObject({ fastDestructiveApprovals: 2, flagged: false });
    });

    it("refuses the numbers to anyone but an admin, in the lib too", async () => {
      expect(await refusal(ins.computeInsights(reviewer.id, period(), { now: NOW }))).toBe("forbidden");
    });

    it("validates the period: bad dates, reversed, over 366 days; defaults to the last 30 days", () => {
      const bad = (q: Record<string, unknown>) => {
        try {
          ins.parsePeriod(q, NOW);
          return "accepted";
        } catch (e) {
          return (e as Error).message;
        }
      };
      expect(bad({ from: "2026-13-01" })).toBe("from is not a calendar date");
      expect(bad({ from: "yesterday" })).toBe("from must be a date as YYYY-MM-DD");
      expect(bad({ from: "2026-10-05", to: "2026-10-01" })).toBe("from must be on or before to");
      expect(bad({ from: "2025-01-01", to: "2026-01-02" })).toBe("the period is 367 days: at most 366");
      expect(bad({ from: "2025-01-01", to: "2026-01-01" })).toBe("accepted");
      const d = ins.parsePeriod({}, NOW);
      expect([d.days.length, d.days[0], d.days.at(-1), d.from.toISOString(), d.to.toISOString()]).toEqual([
        30,
        "2026-09-11",
        "2026-10-10",
        "2026-09-11T00:00:00.000Z",
        "2026-10-11T00:00:00.000Z",
      ]);
    });

    it("writes CSV with a header row, neutralizing formula-looking text", () => {
      expect(csv.csvCell("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
      expect(csv.csvCell("+1")).toBe("'+1");
      expect(csv.csvCell("-1")).toBe("'-1");
      expect(csv.csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
      expect(csv.csvCell("a,b")).toBe('"a,b"');
      expect(csv.csvCell('=say "hi"')).toBe(`"'=say ""hi"""`);
      expect(csv.csvCell(-1)).toBe("-1");
      expect(csv.csvCell(null)).toBe("");
      expect(csv.toCsv(["key", "n"], [["=cmd", 2]])).toBe("key,n\r\n'=cmd,2\r\n");
    });

    it("serves each chart's CSV to an admin over HTTP, byte for byte, and refuses a reviewer and an anonymous caller", async () => {
      const get = (path: string, cookie: string) => fetch(`${base}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
      const q = "from=2026-10-01&to=2026-10-03";
      const requests = await get(`/admin/insights/csv?chart=requests&${q}`, adminCookie);
      expect(requests.status).toBe(200);
      expect(requests.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(await requests.text()).toBe(
        [
          "day,approved,denied,expired,cancelled,revised,pending",
          "2026-10-01,2,1,0,0,0,0",
          "2026-10-02,2,0,1,1,0,0",
          "2026-10-03,6,0,1,0,1,1",
          "",
        ].join("\r\n"),
      );
      const expiries = await get(`/admin/insights/csv?chart=expiries&${q}`, adminCookie);
      expect(await expiries.text()).toBe("day,expired\r\n2026-10-01,0\r\n2026-10-02,1\r\n2026-10-03,1\r\n");
      const times = await (await get(`/admin/insights/csv?chart=decision-time&${q}`, adminCookie)).text();
      expect(times.split("\r\n").filter((l) => l.startsWith("tool,") || l.startsWith("channel,") || l.startsWith("by,"))).toEqual([
        "by,key,decided,p50_seconds,p95_seconds",
        "tool,deploy,4,10,100",
        "tool,wipe,7,62,90",
        "channel,batch,1,100,100",
        "channel,browser,8,60,90",
        "channel,slack,1,30,30",
        "channel,standing,1,0,0",
      ]);
      expect(times).toContain(`service,${svcA},9,60,90\r\n`);
      const reviewers = await (await get(`/admin/insights/csv?chart=reviewers&${q}`, adminCookie)).text();
      expect(
        reviewers.startsWith(
          "reviewer,votes,approvals,approval_rate,median_seconds_on_page,destructive_approvals,fast_destructive_approvals,flagged\r\n",
        ),
      ).toBe(true);
      expect(reviewers).toContain(`\r\n${people.carol.email},4,4,1,6.5,4,3,true\r\n`);
      expect(reviewers).toContain(`\r\n${people.bob.email},2,1,0.5,40,0,0,false\r\n`);

      expect((await get(`/admin/insights/csv?chart=requests&${q}`, reviewerCookie)).status).toBe(403);
      expect((await get(`/admin/insights/csv?chart=requests&${q}`, "")).status).toBe(401);
      const badChart = await get(`/admin/insights/csv?chart=secrets&${q}`, adminCookie);
      expect(badChart.status).toBe(422);
      const badPeriod = await get(`/admin/insights/csv?chart=requests&from=2020-01-01&to=2026-01-01`, adminCookie);
      expect(badPeriod.status).toBe(422);
    });

    it("renders the page for an admin with its charts and tables, explains a bad period, and refuses a reviewer", async () => {
      const page = async (path: string, cookie: string) => {
        const r = await fetch(`${base}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
        return { status: r.status, html: await r.text() };
      };
      const shown = await page("/admin/insights?from=2026-10-01&to=2026-10-03", adminCookie);
      expect(shown.status).toBe(200);
      expect(shown.html).toContain('data-testid="requests-svg"');
      expect(shown.html).toContain("viewBox=");
      expect(shown.html).toContain("fast on destructive");
      expect(shown.html).toContain('href="/admin/insights/csv?chart=reviewers&amp;from=2026-10-01&amp;to=2026-10-03"');
      const bad = await page("/admin/insights?from=2026-02-30", adminCookie);
      expect(bad.status).toBe(200);
      expect(bad.html).toMatch(/data-testid="period-problem">That period cannot be shown: (<!-- -->)?from is not a calendar date(<!-- -->)?\./);
      const refused = await page("/admin/insights", reviewerCookie);
      expect(refused.status).not.toBe(200);
      expect(refused.html).not.toContain("Requests per day by outcome");
    });
  });
}
