// `service set-notify-webhook` on the admin command line, through its
// dispatcher in this process, configured as in production (loopback refused),
// on a real SQLite file: it saves, shows
// and clears a service's notification webhook URL, refuses a blocked address
// or a missing choice with nothing changed, and each change is one audit event.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSecrets } from "@/lib/local-secrets";
import { useFreshDatabase } from "../helpers/databases";
import { adminInProcess as adminCli } from "../helpers/admin-cli";

describe("admin command line: service set-notify-webhook (sqlite)", () => {
  let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
  const secrets = generateSecrets();

  beforeAll(async () => {
    // Before lib/env is first read: production's configuration, loopback refused.
    Object.assign(process.env, secrets, { NODE_ENV: "production" });
    delete process.env.CALLBACK_ALLOW_LOOPBACK;
    ctx = await useFreshDatabase("sqlite");
  });
  afterAll(async () => ctx?.close());

  const stored = async (slug: string) => (await ctx.db.service.findUniqueOrThrow({ where: { slug } })).notifyWebhookUrl;

  it("sets, refuses and clears a service's notification webhook URL", async () => {
    const slug = "notify-cli";
    expect((await adminCli(["service", "add", "--slug", slug])).code).toBe(0);
    const url = "https://oncall.example.com/countersign";

    const set = await adminCli(["service", "set-notify-webhook", "--slug", slug, "--url", url]);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ slug, notify_webhook_url: url });
    expect(await stored(slug)).toBe(url);

    // Refused, and the saved URL stays: a blocked address, a bad URL, neither or both choices, an unknown service.
    const refused = await Promise.all([
      adminCli(["service", "set-notify-webhook", "--slug", slug, "--url", "http://[::1]:9/hook"]),
      adminCli(["service", "set-notify-webhook", "--slug", slug, "--url", "ftp://files.example.com/x"]),
      adminCli(["service", "set-notify-webhook", "--slug", slug]),
      adminCli(["service", "set-notify-webhook", "--slug", slug, "--url", url, "--clear"]),
      adminCli(["service", "set-notify-webhook", "--slug", slug, "--url", ""]),
      adminCli(["service", "set-notify-webhook", "--slug", "no-such-service", "--clear"]),
    ]);
    expect(refused[0]).toMatchObject({ code: 1, stdout: "" });
    expect(refused[0]!.stderr).toContain("error: invalid-request: Notification webhook URL refused: callbacks may not go to ");
    expect(refused[1]).toMatchObject({ code: 1, stdout: "" });
    expect(refused[1]!.stderr).toContain("must be an http or https URL");
    for (const r of refused.slice(2, 5)) {
      expect(r.code, r.stderr).toBe(64);
      expect(r.stderr).toContain("usage: npm run admin -- <command>");
      expect(r.stderr).toContain("service set-notify-webhook --slug S (--url U | --clear)");
    }
    expect(refused[5]).toMatchObject({ code: 1, stdout: "" });
    expect(refused[5]!.stderr).toContain("error: not-found: no service no-such-service");
    expect(await stored(slug)).toBe(url);

    const cleared = await adminCli(["service", "set-notify-webhook", "--slug", slug, "--clear"]);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toEqual({ slug, notify_webhook_url: null });
    expect(await stored(slug)).toBeNull();

    const events = await ctx.db.auditEvent.findMany({ where: { type: "service.updated" }, orderBy: { seq: "asc" } });
    expect(events.map((e) => [e.actor, JSON.parse(e.data)])).toEqual([
      ["cli", { service: slug, field: "notify_webhook_url", change: "set" }],
      ["cli", { service: slug, field: "notify_webhook_url", change: "cleared" }],
    ]);
  }, 180_000);
});
