// Rotating a service's API token and callback secret (lib/services/rotate-credential.ts),
// as the webhook secret rotates: the new value works at once and the old one
// until the rotation is finished; a second start is refused with a message that
// names no command-line flag (the command line adds its own); every step is
// audited; callbacks carry a signature by each secret while the secret rotates.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { refusalWithMessage } from "../helpers/refusal-code";
import { adminInProcess } from "../helpers/admin-cli";

export function credentialRotationSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`service credential rotation (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let rotation: typeof import("@/lib/services/rotate-credential");
    let services: typeof import("@/lib/services/manage-services");
    let authenticate: typeof import("@/lib/services/authenticate-service").authenticateServiceToken;
    let callbackSecretsOf: typeof import("@/lib/services/service-secrets").callbackSecretsOf;
    let postSignedWebhook: typeof import("@/lib/callbacks/signed-post").postSignedWebhook;
    let verifyWebhook: typeof import("@countersign/client").verifyWebhook;
    let receiver: Server;
    const received: Array<{ headers: IncomingMessage["headers"]; body: Buffer }> = [];

    beforeAll(async () => {
      // The receiver below listens on loopback.
      process.env.CALLBACK_ALLOW_LOOPBACK = "1";
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      rotation = await import("@/lib/services/rotate-credential");
      services = await import("@/lib/services/manage-services");
      ({ authenticateServiceToken: authenticate } = await import("@/lib/services/authenticate-service"));
      ({ callbackSecretsOf } = await import("@/lib/services/service-secrets"));
      ({ postSignedWebhook } = await import("@/lib/callbacks/signed-post"));
      ({ verifyWebhook } = await import("@countersign/client"));
      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          received.push({ headers: req.headers, body: Buffer.concat(chunks) });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    });
    afterAll(async () => {
      await new Promise((resolve) => receiver?.close(resolve));
      await ctx?.close();
    });

    const rotationEvents = async (slug: string) =>
      (await ctx.db.auditEvent.findMany({ where: { type: "service.secret_rotated" }, orderBy: { seq: "asc" } }))
        .map((e) => ({ actor: e.actor, data: JSON.parse(e.data) as Record<string, unknown> }))
        .filter((e) => e.data.service === slug);

    it("rotates the API token: both tokens work until the finish, then only the new one; each step audited", async () => {
      const s = await f.makeService();
      const old = s.api_token;
      expect(await authenticate(`Bearer ${old}`)).toMatchObject({ slug: s.slug });

      const r = await rotation.rotateCredential(s.slug, "api-token", "user:admin@example.com");
      expect(r).toMatchObject({ slug: s.slug, credential: "api-token" });
      expect(r.value).toMatch(/^cs_tok_/);
      expect(r.value).not.toBe(old);
      expect(await authenticate(`Bearer ${old}`)).toMatchObject({ slug: s.slug });
      expect(await authenticate(`Bearer ${r.value}`)).toMatchObject({ slug: s.slug });
      expect((await services.listServices()).find((x) => x.slug === s.slug)).toMatchObject({ rotating: false, rotations: ["api-token"] });
      // Stored as a hash only.
      const row = await ctx.db.service.findUniqueOrThrow({ where: { slug: s.slug }, select: { apiTokenHash: true, apiTokenPrevHash: true } });
      expect(JSON.stringify(row)).not.toContain(r.value);
      expect(JSON.stringify(row)).not.toContain(old);

      // A second start: refused, the first rotation's tokens untouched; the message names no flag or button.
      const again = await refusalWithMessage(rotation.rotateCredential(s.slug, "api-token", "cli"));
      expect(again).toEqual({
        code: "conflict",
        message: `a rotation of the API token of ${s.slug} is already in progress: finish it before starting another`,
      });
      expect(await authenticate(`Bearer ${old}`)).toMatchObject({ slug: s.slug });

      await rotation.finishCredentialRotation(s.slug, "api-token", "user:admin@example.com");
      expect(await authenticate(`Bearer ${old}`)).toBeNull();
      expect(await authenticate(`Bearer ${r.value}`)).toMatchObject({ slug: s.slug });
      expect(await refusalWithMessage(rotation.finishCredentialRotation(s.slug, "api-token", "cli"))).toEqual({
        code: "conflict",
        message: `no rotation of the API token of ${s.slug} is in progress`,
      });
      // The webhook secret's rotation is a separate one.
      expect((await services.listServices()).find((x) => x.slug === s.slug)?.rotations).toEqual([]);

      expect(await rotationEvents(s.slug)).toEqual([
        { actor: "user:admin@example.com", data: { service: s.slug, credential: "api-token", step: "started" } },
        { actor: "user:admin@example.com", data: { service: s.slug, credential: "api-token", step: "finished" } },
      ]);
      // A disabled service's tokens stop at once, rotation or not.
      const t = await rotation.rotateCredential(s.slug, "api-token", "cli");
      await services.disableService(s.slug, "cli");
      expect(await authenticate(`Bearer ${t.value}`)).toBeNull();
      expect(await authenticate(`Bearer ${r.value}`)).toBeNull();
    });

    it("rotates the callback secret: callbacks carry a signature by each secret until the finish", async () => {
      const s = await f.makeService();
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cb`;
      const send = async (id: string) => {
        const secrets = await callbackSecretsOf(ctx.db, s.auth.id);
        expect(await postSignedWebhook(url, `{"n":"${id}"}`, id, secrets)).toMatchObject({ ok: true });
        const got = received.at(-1)!;
        const headers = {
          id: String(got.headers["webhook-id"]),
          timestamp: String(got.headers["webhook-timestamp"]),
          signature: String(got.headers["webhook-signature"]),
        };
        return (secret: string) => verifyWebhook({ secrets: [secret], headers, rawBody: got.body }).ok;
      };
      const old = s.callback_secret;
      expect((await send("msg_before"))(old)).toBe(true);

      const r = await rotation.rotateCredential(s.slug, "callback-secret", "cli");
      expect(r.value).toMatch(/^whsec_/);
      const during = await send("msg_during");
      expect([during(old), during(r.value)]).toEqual([true, true]);

      await rotation.finishCredentialRotation(s.slug, "callback-secret", "cli");
      const after = await send("msg_after");
      expect([after(old), after(r.value)]).toEqual([false, true]);
      expect((await rotationEvents(s.slug)).map((e) => e.data.credential)).toEqual(["callback-secret", "callback-secret"]);
    });

    it("on the command line: --credential picks the credential; a second start names --finish; an unknown credential is refused", async () => {
      const s = await f.makeService();
      const started = await adminInProcess(["service", "rotate-secret", "--slug", s.slug, "--credential", "api-token"]);
      expect(started.code, started.stderr).toBe(0);
      const body = JSON.parse(started.stdout) as { slug: string; api_token: string };
      expect(body.slug).toBe(s.slug);
      expect(await authenticate(`Bearer ${body.api_token}`)).toMatchObject({ slug: s.slug });
      const again = await adminInProcess(["service", "rotate-secret", "--slug", s.slug, "--credential", "api-token"]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`(service rotate-secret --slug ${s.slug} --credential api-token --finish)`);
      const finished = await adminInProcess(["service", "rotate-secret", "--slug", s.slug, "--credential", "api-token", "--finish"]);
      expect(JSON.parse(finished.stdout)).toEqual({ slug: s.slug, credential: "api-token", rotation: "finished" });
      // Without --credential: the webhook secret, as before.
      const webhook = await adminInProcess(["service", "rotate-secret", "--slug", s.slug]);
      expect(Object.keys(JSON.parse(webhook.stdout) as object)).toEqual(["slug", "webhook_secret"]);
      expect((await adminInProcess(["service", "rotate-secret", "--slug", s.slug])).stderr).toContain(
        `(service rotate-secret --slug ${s.slug} --finish)`,
      );
      expect(JSON.parse((await adminInProcess(["service", "rotate-secret", "--slug", s.slug, "--finish"])).stdout)).toEqual({
        slug: s.slug,
        rotation: "finished",
      });
      const bad = await adminInProcess(["service", "rotate-secret", "--slug", s.slug, "--credential", "password"]);
      expect(bad.stderr).toContain("credential: must be webhook-secret, api-token or callback-secret");
    });
  });
}
