// Slack end to end: the built app (two instances on PostgreSQL) talks to a
// local stand-in for the Slack Web API through Slack's official client
// (slack-api.ts), and receives button presses and dialogs signed exactly as
// Slack signs them (sign-interaction.ts). No live Slack workspace is
// reachable from the test machines; the stand-in answers with the documented
// shapes of the methods Countersign calls and records every call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_TEST_URL, type Provider } from "../helpers/databases";
import { useNotifyingApps, type NotifyingApps } from "../helpers/notifying-apps";
import { slackApi, visibleText, type PostedMessage, type SlackApi } from "./slack-api";
import { buttonPress, denySubmission, signedInteraction } from "./sign-interaction";

const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const SECRET_VALUES = ["hunter2-NEVER-SLACK", "4111 1111 1111 1111", "4111111111111111"];

export function slackSuite(provider: Provider) {
  describe.runIf(provider === "sqlite" || PG_TEST_URL)(`Slack (${provider})`, () => {
    let api: SlackApi;
    beforeAll(async () => {
      api = await slackApi();
    });
    afterAll(async () => api?.close());
    const apps = useNotifyingApps(provider, {
      name: "slack",
      env: () => ({ SLACK_BOT_TOKEN: api.token, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_TEAM_ID: "T0TEST", SLACK_API_URL: api.url }),
    });
    let f: NotifyingApps["f"];
    let db: NotifyingApps["db"];
    let recordReview: NotifyingApps["recordReview"];
    beforeAll(() => ({ f, db, recordReview } = apps));

    const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
    async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = await check();
        if (v) return v;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await settle(150);
      }
    }

    let slackIds = 0;
    /** A Countersign user and the Slack user with the same (verified) email. */
    async function person(roles: string[]) {
      const user = await f.makeUser(roles);
      const slackId = `U${String(++slackIds).padStart(4, "0")}${f.uid().toUpperCase()}`;
      api.addUser({ id: slackId, email: user.email });
      return { ...user, slackId };
    }

    /** A four-eyes policy with a channel, a tool and a role of its own, and its people. */
    async function setUp(opts: { effects?: string; minReviewSeconds?: number } = {}) {
      const role = `approver-${f.uid()}`;
      const tool = `payments.refund_${f.uid()}`;
      const channel = `#approvals-${f.uid()}`;
      const { setPolicy } = await import("@/lib/policies/set-policy");
      await setPolicy(
        {
          name: `slack-${f.uid()}`,
          tool,
          roles: [role],
          quorum: 2,
          ttl: 3600,
          slack_channel: channel,
          min_review_seconds: opts.minReviewSeconds ?? 0,
        },
        "cli",
        { anyway: true },
      );
      const [a, b, requester, other] = await Promise.all([person([role]), person([role]), person([role]), person(["reviewer"])]);
      const svc = await f.makeService();
      const ask = (data: { arguments?: Record<string, unknown>; summary?: string; environment?: string } = {}) =>
        f.makeApproval(svc, {
          tool,
          effects: opts.effects ?? "write",
          requested_by: requester.email,
          arguments: { amount: 12, password: "hunter2-NEVER-SLACK", note: "card 4111 1111 1111 1111" },
          ...data,
        }) as Promise<{ approval_id: string }>;
      return { role, tool, channel, a, b, requester, other, svc, ask };
    }

    const postsAbout = (approvalId: string): PostedMessage[] =>
      [...api.messages.values()].filter((m) => m.blocks.some((b) => JSON.stringify(b).includes(approvalId)));
    const dmChannelOf = (slackId: string) => api.callsOf("chat.postMessage").some((c) => c.args.channel === slackId);
    /** The id the stand-in gave a channel posted to by #name. */
    const postsIn = (approvalId: string, channel: string) => {
      const call = api.callsOf("chat.postMessage").find((c) => c.args.channel === channel && String(c.args.blocks).includes(approvalId));
      return postsAbout(approvalId).filter((p) => call && api.messages.get(`${p.channel} ${p.ts}`) && p.channel.startsWith("C"));
    };
    const ephemeralsTo = (slackId: string) => api.callsOf("chat.postEphemeral").filter((c) => c.args.user === slackId);

    async function press(p: Parameters<typeof buttonPress>[0], opts: { secret?: string; timestamp?: number } = {}) {
      const signed = signedInteraction(opts.secret ?? SIGNING_SECRET, buttonPress(p), { timestamp: opts.timestamp });
      return fetch(`${apps.appUrl}/api/slack/interactions`, { method: "POST", headers: signed.headers, body: signed.body });
    }
    /** Presses a button and returns the private reply it caused. */
    async function pressAndHear(p: Parameters<typeof buttonPress>[0]): Promise<string> {
      const before = ephemeralsTo(p.user).length;
      const res = await press(p);
      expect(res.status).toBe(200);
      const reply = await until("a private reply", () => ephemeralsTo(p.user)[before]);
      return String(reply.args.text);
    }

    it("posts each request to the policy's channel and by direct message to exactly the reviewers who may decide", async () => {
      const { a, b, requester, other, channel, tool, svc, ask } = await setUp();
      const created = await ask();
      await until("three posts", () => postsAbout(created.approval_id).length >= 3 && true);
      await settle(2500); // a duplicate (another instance) would arrive by now

      const calls = api.callsOf("chat.postMessage").filter((c) => String(c.args.blocks).includes(created.approval_id));
      expect(calls.map((c) => c.args.channel).sort()).toEqual([channel, a.slackId, b.slackId].sort());
      expect(dmChannelOf(requester.slackId) || dmChannelOf(other.slackId)).toBe(false);
      const approval = await db.approval.findUniqueOrThrow({ where: { id: created.approval_id } });
      const inChannel = postsIn(created.approval_id, channel)[0]!;
      for (const post of postsAbout(created.approval_id)) {
        const text = visibleText(post.blocks);
        expect(text).toContain(tool);
        expect(text).toContain(svc.slug);
        // The digest of an unsalted request with redacted values is for its reviewers only (a guessing
        // oracle otherwise): a direct message shows its start, the channel's members do not get it.
        if (post === inChannel) {
          expect(text).not.toContain(approval.argsDigest.slice(7, 19));
          expect(text).toContain("for the reviewers: Full digest");
        } else expect(text).toContain(approval.argsDigest.slice(0, 19)); // "sha256:" and the first 12 hex digits
        expect(text).not.toContain(approval.argsDigest); // the full value is one click away, not in the message
        expect(text).toContain("[redacted:");
        expect(text).toContain('"amount": 12');
        for (const value of SECRET_VALUES) expect(JSON.stringify(post)).not.toContain(value);
        const buttons = post.blocks.find((blk) => blk.type === "actions")!.elements as Array<{ action_id: string; url?: string }>;
        expect(buttons.map((x) => x.action_id)).toEqual(["countersign_approve", "countersign_deny", "countersign_digest", "countersign_open"]);
        expect(buttons[3]!.url).toBe(`${apps.appUrl}/approvals/${created.approval_id}`);
      }
      // Where each post is, for its update.
      expect(await db.slackPost.count({ where: { approvalId: created.approval_id } })).toBe(3);
    });

    it("four-eyes through two Slack users; every message then shows who decided", async () => {
      const { a, b, channel, ask } = await setUp();
      const created = await ask();
      const posts = await until("three posts", () => (postsAbout(created.approval_id).length >= 3 ? postsAbout(created.approval_id) : false));
      const inChannel = postsIn(created.approval_id, channel)[0]!;
      expect(posts).toContain(inChannel);
      const at = { channel: inChannel.channel, messageTs: inChannel.ts, value: created.approval_id, actionId: "countersign_approve" };

      expect(await pressAndHear({ ...at, user: a.slackId })).toBe("Your approval is recorded (1 of 2); the request waits for 1 more.");
      // First use linked the Slack user to the Countersign user with the same email.
      expect(await db.user.findUniqueOrThrow({ where: { id: a.id } })).toMatchObject({ slackUserId: a.slackId });
      const linked = await db.auditEvent.findMany({ where: { type: "user.slack_linked", actor: `user:${a.email}` } });
      expect(linked).toHaveLength(1);
      expect(await pressAndHear({ ...at, user: a.slackId })).toMatch(/^Not recorded: you have already reviewed this request/);

      expect(await pressAndHear({ ...at, user: b.slackId })).toBe("Approved: your approval completed the request.");
      const decided = await db.approval.findUniqueOrThrow({ where: { id: created.approval_id }, include: { reviews: true } });
      expect(decided.status).toBe("approved");
      expect(decided.reviews.map((r) => r.reviewerEmail).sort()).toEqual([a.email, b.email].sort());
      const votes = await db.auditEvent.findMany({ where: { approvalId: created.approval_id, type: "review.recorded" } });
      expect(votes.map((v) => JSON.parse(v.data).via)).toEqual(["slack", "slack"]);

      // Every message about it (channel and both direct messages) is updated, once, without buttons to press.
      await until("three updates", () => postsAbout(created.approval_id).every((p) => p.updates === 1) && true);
      for (const post of postsAbout(created.approval_id)) {
        const text = visibleText(post.blocks);
        expect(text).toContain("Approved");
        expect(text).toContain(a.email);
        expect(text).toContain(b.email);
        expect(JSON.stringify(post.blocks)).not.toContain("countersign_approve");
      }
    });

    it("shows a link to admins, and an admin's unlink makes the next click link again", async () => {
      const setUpPeople = await setUp();
      const { a, channel, ask } = setUpPeople;
      const created = await ask();
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      await pressAndHear({ channel: post.channel, messageTs: post.ts, value: created.approval_id, actionId: "countersign_digest", user: a.slackId });
      const { listUsers } = await import("@/lib/users/list-users");
      expect((await listUsers()).find((u) => u.email === a.email)!.slack).toMatchObject({ userId: a.slackId });

      const { unlinkSlackUser } = await import("@/lib/slack/slack-identity");
      expect(await unlinkSlackUser(a.email, "cli")).toEqual({ email: a.email, slackUserId: a.slackId });
      expect((await listUsers()).find((u) => u.email === a.email)!.slack).toBeNull();
      await expect(unlinkSlackUser(a.email, "cli")).rejects.toMatchObject({ code: "conflict" });
      expect(await db.auditEvent.count({ where: { type: "user.slack_unlinked", actor: "cli" } })).toBeGreaterThanOrEqual(1);

      const digest = await pressAndHear({
        channel: post.channel,
        messageTs: post.ts,
        value: created.approval_id,
        actionId: "countersign_digest",
        user: a.slackId,
      });
      const approval = await db.approval.findUniqueOrThrow({ where: { id: created.approval_id } });
      expect(digest).toBe(`Argument digest of this request:\n\`${approval.argsDigest}\``);
      // Full digest follows the page's rules: someone who may not see the request learns nothing, and
      // its requester may see it but not the digest of its redacted values.
      const { other, requester } = setUpPeople;
      expect(
        await pressAndHear({
          channel: post.channel,
          messageTs: post.ts,
          value: created.approval_id,
          actionId: "countersign_digest",
          user: other.slackId,
        }),
      ).toBe("That request does not exist, or you may not see it.");
      expect(
        await pressAndHear({
          channel: post.channel,
          messageTs: post.ts,
          value: created.approval_id,
          actionId: "countersign_digest",
          user: requester.slackId,
        }),
      ).toBe("Only the request's reviewers may see its digest.");
      expect(await db.auditEvent.count({ where: { type: "user.slack_linked", actor: `user:${a.email}` } })).toBe(2);
    });

    it("refuses the requester, a disabled user, an unknown Slack user and an unverified email, privately, recording nothing", async () => {
      const { requester, role, channel, ask } = await setUp();
      const created = await ask();
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      const at = { channel: post.channel, messageTs: post.ts, value: created.approval_id, actionId: "countersign_approve" };

      expect(await pressAndHear({ ...at, user: requester.slackId })).toBe("Not recorded: you requested this call, so you cannot review it.");
      const gone = await person([role]);
      await db.user.update({ where: { id: gone.id }, data: { disabledAt: new Date() } });
      expect(await pressAndHear({ ...at, user: gone.slackId })).toBe("Your Countersign account is disabled.");
      api.addUser({ id: "UNOBODY01", email: `stranger-${f.uid()}@example.com` });
      expect(await pressAndHear({ ...at, user: "UNOBODY01" })).toMatch(/^Your Slack account is not linked to a Countersign user/);
      // Same email as a Countersign user, but Slack has not verified it: proves nothing.
      const someone = await f.makeUser(["payments"]);
      api.addUser({ id: "UUNCONFIRM", email: someone.email, confirmed: false });
      expect(await pressAndHear({ ...at, user: "UUNCONFIRM" })).toMatch(/^Your Slack account is not linked/);
      expect(await pressAndHear({ ...at, actionId: "countersign_deny", user: "UNOBODY01" })).toMatch(/^Your Slack account is not linked/);

      expect(await db.review.count({ where: { approvalId: created.approval_id } })).toBe(0);
      expect(await db.user.count({ where: { slackUserId: { in: ["UNOBODY01", "UUNCONFIRM"] } } })).toBe(0);
      expect(api.callsOf("views.open")).toHaveLength(0);
    });

    /** The buttons of a posted message, by action id. */
    const buttonsOf = (post: PostedMessage) =>
      post.blocks.filter((blk) => blk.type === "actions").flatMap((blk) => (blk.elements as Array<{ action_id: string }>).map((e) => e.action_id));
    // What must never reach a message raw; line feeds are the message's own.
    const RAW_HIDDEN = /[\p{Cf}\x00-\x09\x0B-\x1F\x7F-\x9F\p{Zl}\p{Zp}\u00A0\u2000-\u200A\u3000]/u;

    it("posts a spoofing request with the page's escapes and warning and no Approve; a signed Approve for it records nothing", async () => {
      const { a, channel, ask } = await setUp();
      const created = await ask({
        summary: "Refund AC-\u202E9876\u202C as agreed",
        environment: "pr\u043Eduction", // a Cyrillic о
        arguments: { account: "AC-\u202E9876\u202C", ["amount\u200B"]: 12, payee: "p\u0430ypal.com" },
      });
      const posts = await until("three posts", () => (postsAbout(created.approval_id).length >= 3 ? postsAbout(created.approval_id) : false));
      for (const post of posts) {
        const text = visibleText(post.blocks);
        expect(text).not.toMatch(RAW_HIDDEN);
        expect(post.text).not.toMatch(RAW_HIDDEN);
        expect(text).toContain("Check carefully: this request contains hidden, direction-changing or look-alike characters");
        expect(text).toContain("Refund AC-⟨U+202E⟩9876⟨U+202C⟩ as agreed");
        expect(text).toContain("pr⟨о⟩duction");
        expect(text).toContain('"amount⟨U+200B⟩": 12');
        expect(text).toContain('"payee": "p⟨а⟩ypal.com"');
        expect(buttonsOf(post)).toEqual(["countersign_open", "countersign_deny", "countersign_digest"]);
        expect(JSON.stringify(post.blocks)).not.toContain("countersign_approve");
      }

      // An Approve click anyway (an old message, a crafted but correctly signed payload): refused, privately.
      const post = postsIn(created.approval_id, channel)[0]!;
      const reply = await pressAndHear({
        channel: post.channel,
        messageTs: post.ts,
        value: created.approval_id,
        actionId: "countersign_approve",
        user: a.slackId,
      });
      expect(reply).toBe(
        "Not recorded: Approve is not offered in Slack for this request, because it contains hidden, direction-changing or look-alike characters. " +
          `Review it on its page and vote there: <${apps.appUrl}/approvals/${created.approval_id}|open the request>.`,
      );
      expect(await db.review.count({ where: { approvalId: created.approval_id } })).toBe(0);
      expect(await db.auditEvent.count({ where: { approvalId: created.approval_id, type: "review.recorded" } })).toBe(0);
      expect(await db.approval.findUniqueOrThrow({ where: { id: created.approval_id } })).toMatchObject({ status: "pending", approveCount: 0 });
      // Deny stays: its dialog opens.
      const opened = api.callsOf("views.open").length;
      await press({ channel: post.channel, messageTs: post.ts, value: created.approval_id, actionId: "countersign_deny", user: a.slackId });
      await until("the dialog", () => api.callsOf("views.open")[opened]);
    });

    it("offers Open instead of Approve when the arguments do not fit the message whole, and refuses an Approve click for them", async () => {
      const { a, channel, ask } = await setUp();
      const created = await ask({ arguments: { amount: 12, note: "routine ".repeat(300), wire_to: "DE89-ATTACKER" } });
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      expect(buttonsOf(post)).toEqual(["countersign_open", "countersign_deny", "countersign_digest"]);
      expect(visibleText(post.blocks)).not.toContain("DE89-ATTACKER");
      const reply = await pressAndHear({
        channel: post.channel,
        messageTs: post.ts,
        value: created.approval_id,
        actionId: "countersign_approve",
        user: a.slackId,
      });
      expect(reply).toMatch(/^Not recorded: Approve is not offered in Slack for this request, because its arguments are too long to show whole/);
      expect(await db.review.count({ where: { approvalId: created.approval_id } })).toBe(0);
    });

    it("links only a Slack user whose email Slack confirms, in the configured workspace, and checks the workspace on every click", async () => {
      const { a, b, role, channel, ask } = await setUp();
      const created = await ask();
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      const at = { channel: post.channel, messageTs: post.ts, value: created.approval_id, actionId: "countersign_approve" };

      // Reviewers who may decide, but Slack does not vouch for their email, or they are in another workspace.
      const [unconfirmed, unsaid, elsewhere] = await Promise.all([person([role]), person([role]), person([role])]);
      api.addUser({ id: unconfirmed.slackId, email: unconfirmed.email, confirmed: false });
      api.addUser({ id: unsaid.slackId, email: unsaid.email, confirmed: "absent" });
      api.addUser({ id: elsewhere.slackId, email: elsewhere.email, teamId: "T0OTHER" });
      for (const who of [unsaid, unconfirmed]) {
        expect(await pressAndHear({ ...at, user: who.slackId })).toMatch(
          /^Your Slack account is not linked to a Countersign user: Slack does not report/,
        );
      }
      expect(await pressAndHear({ ...at, user: elsewhere.slackId })).toBe(
        "Your Slack account is not linked: it is not in the Slack workspace Countersign is set up for.",
      );
      // A click that says it comes from another workspace is refused before anyone is looked up.
      expect(await pressAndHear({ ...at, user: elsewhere.slackId, team: "T0OTHER" })).toBe(
        "This Slack workspace is not the one Countersign is set up for, so nothing from it is recorded.",
      );
      const ids = [unconfirmed, unsaid, elsewhere].map((p) => p.id);
      expect(await db.user.count({ where: { id: { in: ids }, slackUserId: { not: null } } })).toBe(0);
      expect(await db.review.count({ where: { approvalId: created.approval_id } })).toBe(0);

      // The right workspace and a confirmed email: linked, and the vote counts.
      expect(await pressAndHear({ ...at, user: a.slackId })).toBe("Your approval is recorded (1 of 2); the request waits for 1 more.");
      // A user already linked is held to the workspace too: a payload naming another team, or the user's own team, records nothing.
      await pressAndHear({ ...at, actionId: "countersign_digest", user: b.slackId });
      expect(await db.user.findUniqueOrThrow({ where: { id: b.id } })).toMatchObject({ slackUserId: b.slackId });
      expect(await pressAndHear({ ...at, user: b.slackId, team: "T0OTHER" })).toMatch(
        /^This Slack workspace is not the one Countersign is set up for/,
      );
      expect(await pressAndHear({ ...at, user: b.slackId, userTeam: "T0OTHER" })).toMatch(/^This Slack workspace is not the one/);
      const denied = signedInteraction(
        SIGNING_SECRET,
        denySubmission({ user: b.slackId, privateMetadata: JSON.stringify({ approvalId: created.approval_id }), reason: "no", team: "T0OTHER" }),
      );
      const answer = await fetch(`${apps.appUrl}/api/slack/interactions`, { method: "POST", headers: denied.headers, body: denied.body });
      expect(await answer.json()).toEqual({
        response_action: "errors",
        errors: { reason: "This Slack workspace is not the one Countersign is set up for, so nothing from it is recorded." },
      });
      expect(await db.review.count({ where: { approvalId: created.approval_id } })).toBe(1);
      expect(await pressAndHear({ ...at, user: b.slackId })).toBe("Approved: your approval completed the request.");
    });

    it("answers 401 to a forged, stale or future-dated signature, counts it, and acts on nothing", async () => {
      const { a, channel, ask } = await setUp();
      const created = await ask();
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      const at = { channel: post.channel, messageTs: post.ts, value: created.approval_id, actionId: "countersign_approve", user: a.slackId };
      const now = Math.floor(Date.now() / 1000);
      const tallied = async () =>
        (await db.refusalTally.findMany({ where: { kind: "slack.interaction_rejected" } })).reduce((n, r) => n + r.count, 0);
      const before = await tallied();

      expect((await press(at, { secret: "0000000000000000forgedsecret" })).status).toBe(401);
      expect((await press(at, { timestamp: now - 6 * 60 })).status).toBe(401);
      expect((await press(at, { timestamp: now + 6 * 60 })).status).toBe(401);
      const unsigned = await fetch(`${apps.appUrl}/api/slack/interactions`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ payload: JSON.stringify(buttonPress(at)) }).toString(),
      });
      expect(unsigned.status).toBe(401);
      expect(await unsigned.json()).toEqual({ error: "invalid-signature" });

      expect(await tallied()).toBe(before + 4);
      expect(await db.review.count({ where: { approvalId: created.approval_id } })).toBe(0);
      expect(ephemeralsTo(a.slackId)).toHaveLength(0);
      // Signed correctly just inside the window: accepted.
      expect((await press(at, { timestamp: now - 4 * 60 })).status).toBe(200);
      await until("the vote", async () => (await db.review.count({ where: { approvalId: created.approval_id } })) === 1);
    });

    it("refuses a vote after a browser decision, and updates the message to show it", async () => {
      const { a, b, channel, ask } = await setUp();
      const created = await ask();
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      await recordReview(a.id, { approvalId: created.approval_id, decision: "deny", reason: "Not this customer" });
      const text = await pressAndHear({
        channel: post.channel,
        messageTs: post.ts,
        value: created.approval_id,
        actionId: "countersign_approve",
        user: b.slackId,
      });
      expect(text).toBe("Not recorded: this request is already denied.");
      await until("the update", () => api.messages.get(`${post.channel} ${post.ts}`)!.updates === 1 && true);
      const shown = visibleText(api.messages.get(`${post.channel} ${post.ts}`)!.blocks);
      expect(shown).toContain("Denied");
      expect(shown).toContain(a.email);
      expect(shown).toContain("Not this customer");
    });

    it("refuses a button press on a request whose policy asks for time on its page, pointing to the page", async () => {
      const { a, channel, ask } = await setUp({ minReviewSeconds: 5 });
      const created = await ask();
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      // Whatever the time (the lib test moves the clock): a Slack message shows no page, so it never counts as a look at one.
      const text = await pressAndHear({
        channel: post.channel,
        messageTs: post.ts,
        value: created.approval_id,
        actionId: "countersign_approve",
        user: a.slackId,
      });
      expect(text).toContain("open the request in Countersign and vote there");
      expect(await db.review.count({ where: { approvalId: created.approval_id } })).toBe(0);
      expect(await db.approval.findUniqueOrThrow({ where: { id: created.approval_id } })).toMatchObject({ status: "pending" });
    });

    it("refuses a reviewer whose role was revoked between the message and the click", async () => {
      const { b, role, channel, ask } = await setUp();
      const created = await ask();
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      const { revokeRole } = await import("@/lib/users/roles");
      await revokeRole({ email: b.email, role }, "cli");
      const text = await pressAndHear({
        channel: post.channel,
        messageTs: post.ts,
        value: created.approval_id,
        actionId: "countersign_approve",
        user: b.slackId,
      });
      expect(text).toBe("That request does not exist, or you may not see it.");
      // Nor does Deny open its dialog (which names the tool) for someone who may not see the request.
      const opened = api.callsOf("views.open").length;
      expect(
        await pressAndHear({ channel: post.channel, messageTs: post.ts, value: created.approval_id, actionId: "countersign_deny", user: b.slackId }),
      ).toBe("That request does not exist, or you may not see it.");
      expect(api.callsOf("views.open")).toHaveLength(opened);
      expect(await db.review.count({ where: { approvalId: created.approval_id } })).toBe(0);
    });

    it("Deny asks for a reason in a dialog; the reason decides the request", async () => {
      const { a, channel, ask } = await setUp({ effects: "destructive" });
      const created = await ask();
      const post = await until("the channel post", () => postsIn(created.approval_id, channel)[0]);
      // A destructive call's Approve button asks again in Slack before it is sent.
      const approve = (post.blocks.find((blk) => blk.type === "actions")!.elements as Array<Record<string, unknown>>)[0]!;
      expect(approve.confirm).toMatchObject({ title: { text: "Approve a destructive call?" } });

      const opened = api.callsOf("views.open").length;
      const res = await press({
        channel: post.channel,
        messageTs: post.ts,
        value: created.approval_id,
        actionId: "countersign_deny",
        user: a.slackId,
        triggerId: "111.222.trigger",
      });
      expect(res.status).toBe(200);
      const call = await until("the dialog", () => api.callsOf("views.open")[opened]);
      expect(call.args.trigger_id).toBe("111.222.trigger");
      const view = JSON.parse(String(call.args.view)) as { callback_id: string; private_metadata: string };
      expect(view.callback_id).toBe("countersign_deny");

      const submit = (reason: string) => {
        const signed = signedInteraction(SIGNING_SECRET, denySubmission({ user: a.slackId, privateMetadata: view.private_metadata, reason }));
        return fetch(`${apps.appUrl}/api/slack/interactions`, { method: "POST", headers: signed.headers, body: signed.body });
      };
      const empty = await submit("   ");
      expect(await empty.json()).toEqual({ response_action: "errors", errors: { reason: "A denial needs a reason." } });
      const done = await submit("Wrong account");
      expect(done.status).toBe(200);
      expect(await done.text()).toBe("");
      const decided = await db.approval.findUniqueOrThrow({ where: { id: created.approval_id }, include: { reviews: true } });
      expect(decided.status).toBe("denied");
      expect(decided.reviews).toMatchObject([{ reviewerEmail: a.email, decision: "deny", reason: "Wrong account" }]);
      // A second submission (Slack retries, a double click) finds it decided: the dialog says so.
      expect(await (await submit("Again")).json()).toEqual({
        response_action: "errors",
        errors: { reason: "Not recorded: this request is already denied." },
      });
    });

    it("waits out Slack's rate limit (429, Retry-After) and posts once", async () => {
      const { channel, ask } = await setUp();
      api.rateLimit("chat.postMessage", 1, 2);
      const created = await ask();
      await until("three posts", () => postsAbout(created.approval_id).length >= 3 && true);
      await settle(1500);
      expect(postsIn(created.approval_id, channel)).toHaveLength(1);
      const limited = await db.notificationAttempt.findMany({ where: { detail: "rate limited by Slack" }, include: { notification: true } });
      expect(limited).toHaveLength(1);
      const retried = await db.notificationAttempt.findMany({ where: { notificationId: limited[0]!.notificationId }, orderBy: { at: "asc" } });
      expect(retried.map((r) => r.result)).toEqual(["error", "sent"]);
      expect(retried[1]!.at.getTime() - retried[0]!.at.getTime()).toBeGreaterThanOrEqual(2000);
    });
  });
}
