// Audit streaming against real receivers the test starts: a syslog receiver
// over TCP and one over TLS (RFC 5424 parsed, octet counting), an HTTP
// receiver checking the webhook's Standard Webhooks signature with the
// official library, and an OTLP/HTTP logs receiver. Passes are called
// directly, with explicit batch sizes, holders and clocks: no sleeps.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Provider } from "../helpers/databases";
import { useFreshDatabase } from "../helpers/databases";
import { syslogReceiver, type SyslogReceiver } from "../helpers/syslog-receiver";
import { close, jsonLinesReceiver, otlpReceiver } from "../helpers/audit-receivers";

export function auditStreamSuite(provider: Provider, enabled = true) {
  describe.runIf(enabled)(`audit streaming (${provider})`, () => {
    let ctx: Awaited<ReturnType<typeof useFreshDatabase>>;
    let f: typeof import("../helpers/fixtures");
    let pass: typeof import("@/lib/audit-stream/stream-pass");
    let state: typeof import("@/lib/audit-stream/sink-state");
    let lag: typeof import("@/lib/audit-stream/lag");
    let syslogSink: typeof import("@/lib/audit-stream/syslog-sink");
    let webhookSink: typeof import("@/lib/audit-stream/webhook-sink").webhookSink;
    let otlpSink: typeof import("@/lib/audit-stream/otlp-sink").otlpSink;
    let directTransaction: typeof import("@/lib/db/sql").directTransaction;
    let recordAudit: typeof import("@/lib/audit/append-event").recordAudit;
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    let hook: Awaited<ReturnType<typeof jsonLinesReceiver>>;
    let tcp: SyslogReceiver;
    let tlsReceiver: SyslogReceiver;
    let otlp: Awaited<ReturnType<typeof otlpReceiver>>;

    beforeAll(async () => {
      hook = await jsonLinesReceiver(secret);
      tcp = await syslogReceiver(false);
      tlsReceiver = await syslogReceiver(true);
      otlp = await otlpReceiver();
      // The environment names every sink, as an operator would.
      Object.assign(process.env, {
        AUDIT_WEBHOOK_URL: hook.url,
        AUDIT_WEBHOOK_SECRET: secret,
        AUDIT_SYSLOG_URL: tcp.url,
        AUDIT_OTLP_URL: otlp.url,
      });
      ctx = await useFreshDatabase(provider);
      f = await import("../helpers/fixtures");
      pass = await import("@/lib/audit-stream/stream-pass");
      state = await import("@/lib/audit-stream/sink-state");
      lag = await import("@/lib/audit-stream/lag");
      syslogSink = await import("@/lib/audit-stream/syslog-sink");
      ({ webhookSink } = await import("@/lib/audit-stream/webhook-sink"));
      ({ otlpSink } = await import("@/lib/audit-stream/otlp-sink"));
      ({ directTransaction } = await import("@/lib/db/sql"));
      ({ recordAudit } = await import("@/lib/audit/append-event"));
    });
    afterAll(async () => {
      for (const k of ["AUDIT_WEBHOOK_URL", "AUDIT_WEBHOOK_SECRET", "AUDIT_SYSLOG_URL", "AUDIT_OTLP_URL"]) delete process.env[k];
      await Promise.all([close(hook.server), close(otlp.server), tcp.stop(), tlsReceiver.stop()]);
      await ctx?.close();
    });

    /** Appends n events to the chain (role grants naming made-up users). */
    const append = (n: number) =>
      directTransaction(async () => {
        for (let i = 0; i < n; i++) recordAudit({ type: "role.granted", actor: "cli", data: { user: `s-${f.uid()}@example.com`, role: "auditor" } });
      });
    /** The chain as the database holds it, each row as a sink should get it. */
    const chain = async () =>
      (await ctx.db.auditEvent.findMany({ orderBy: { seq: "asc" } })).map((e) => ({
        seq: e.seq,
        id: e.id,
        at: e.at.toISOString(),
        type: e.type,
        actor: e.actor,
        approvalId: e.approvalId,
        data: JSON.parse(e.data) as unknown,
        prevHash: e.prevHash,
        hash: e.hash,
      }));
    const seqs = async () => (await chain()).map((e) => e.seq);

    it("configures a sink per variable set", () => {
      expect(pass.configuredSinks().map((s) => s.name)).toEqual(["syslog", "otlp", "webhook"]);
      expect(syslogSink.parseSyslogUrl("tcp://siem.example:1514")).toEqual({ secure: false, host: "siem.example", port: 1514 });
      expect(syslogSink.parseSyslogUrl("tls://siem.example")).toEqual({ secure: true, host: "siem.example", port: 6514 });
      expect(syslogSink.parseSyslogUrl("udp://siem.example")).toBeNull();
      expect(syslogSink.parseSyslogUrl("tcp://siem.example/x?y")).toBeNull();
    });

    it("webhook: signed JSON Lines, every event once and in order, exactly the chain's columns (no argument value)", async () => {
      // A request with a distinctive argument value: its events reach the sink, the value never does.
      const marker = `arg-value-${f.uid()}`;
      const svc = await f.makeService();
      await f.makePolicy({ tool: `stream.tool.${f.uid()}`, roles: ["reviewer"], quorum: 1, service: svc.slug });
      await f.makeApproval(svc, { tool: "stream.any", arguments: { note: marker, amount: 7 } });
      await append(7);
      const sink = webhookSink(hook.url, secret);
      expect(await pass.streamAuditPass([sink], { batch: 4 })).toEqual([{ sink: "webhook", outcome: "caught-up", sent: (await seqs()).length }]);
      const got = hook.batches.flatMap((b) => b.lines);
      expect(got).toEqual(await chain());
      expect(hook.refused).toBe(0);
      expect([...hook.contentTypes]).toEqual(["application/jsonl"]);
      for (const b of hook.batches) expect(b.id).toBe(`audit_${b.lines[0]!.seq}_${b.lines.at(-1)!.seq}`);
      expect(JSON.stringify(hook.batches)).not.toContain(marker);
      // Nothing new: the next pass sends nothing.
      const before = hook.batches.length;
      expect(await pass.streamAuditPass([sink])).toEqual([{ sink: "webhook", outcome: "caught-up", sent: 0 }]);
      expect(hook.batches.length).toBe(before);
    });

    it("webhook: a receiver down gets everything it missed; one that kept a batch but did not acknowledge gets it again, same id", async () => {
      const sink = webhookSink(hook.url, secret);
      hook.batches.length = 0;
      hook.down = true;
      await append(5);
      const [failed] = await pass.streamAuditPass([sink], { batch: 3 });
      expect(failed).toEqual({ sink: "webhook", outcome: "failed", sent: 0, errorClass: "http-status" });
      const row = await ctx.db.auditSink.findUniqueOrThrow({ where: { name: "webhook" } });
      expect(row.lastErrorClass).toBe("http-status");
      expect(row.holder).toBeNull(); // the lease was handed back
      await append(2);
      hook.down = false;
      hook.failAfterKeeping = 1; // keeps the first batch, then "crashes" before answering
      // Not tried again at once after a failure; after STREAM_RETRY_MS it is.
      expect((await pass.streamAuditPass([sink], { batch: 3 }))[0]).toEqual({ sink: "webhook", outcome: "retry-later", sent: 0 });
      const later = () => new Date(Date.now() + pass.STREAM_RETRY_MS);
      expect((await pass.streamAuditPass([sink], { batch: 3, now: later }))[0]!.outcome).toBe("failed");
      expect((await pass.streamAuditPass([sink], { batch: 3, now: later, retryAfterMs: 0 }))[0]).toMatchObject({ outcome: "caught-up", sent: 7 });
      const [first, again, ...rest] = hook.batches;
      expect(again).toEqual(first); // the same batch, the same id: the receiver dedupes by id or seq
      const all = await seqs();
      expect([first!, ...rest].flatMap((b) => b.lines.map((l) => l.seq))).toEqual(all.slice(all.length - 7));
      expect((await ctx.db.auditSink.findUniqueOrThrow({ where: { name: "webhook" } })).lastErrorClass).toBeNull();
    });

    it("syslog over TCP: RFC 5424, one message per event; stopped mid-stream and restarted, every event arrives once, in order", async () => {
      const sink = syslogSink.syslogSink(syslogSink.parseSyslogUrl(tcp.url)!);
      await append(4);
      // One batch of 3 per pass, then the collector goes down.
      expect((await pass.streamAuditPass([sink], { batch: 3, maxBatches: 1 }))[0]).toMatchObject({ outcome: "more", sent: 3 });
      await tcp.stop();
      await append(3);
      const [down] = await pass.streamAuditPass([sink], { batch: 3 });
      expect(down).toEqual({ sink: "syslog", outcome: "failed", sent: 0, errorClass: "connection-refused" });
      const lagged = (await lag.auditSinkLag(["syslog"])).sinks.find((s) => s.name === "syslog")!;
      expect(lagged).toMatchObject({ configured: true, lastErrorClass: "connection-refused" });
      expect(lagged.behind).toBe((await seqs()).length - 3);
      await tcp.start();
      expect((await pass.streamAuditPass([sink], { batch: 3, retryAfterMs: 0 }))[0]!.outcome).toBe("caught-up");
      expect(tcp.malformed).toEqual([]);
      const events = await chain();
      expect(tcp.messages.map((m) => Number(m.sd[0]!.params.seq))).toEqual(events.map((e) => e.seq));
      for (const [i, m] of tcp.messages.entries()) {
        const ev = events[i]!;
        expect(m).toMatchObject({ pri: 110, version: 1, timestamp: ev.at, appName: "countersign", msgId: ev.type });
        expect(m.sd).toEqual([{ id: "countersign@32473", params: { seq: String(ev.seq), id: ev.id, hash: ev.hash } }]);
        expect(JSON.parse(m.msg)).toEqual(ev);
      }
      const caughtUp = (await lag.auditSinkLag(["syslog"])).sinks.find((s) => s.name === "syslog")!;
      expect(caughtUp).toMatchObject({ behind: 0, lastErrorClass: null });
      expect(caughtUp.lastSentAt).toBeInstanceOf(Date);
    });

    it("syslog over TLS: the certificate checked against the trusted authorities, the same messages", async () => {
      const sink = syslogSink.syslogSink(syslogSink.parseSyslogUrl(tlsReceiver.url)!);
      await ctx.db.auditSink.deleteMany({ where: { name: "syslog" } }); // a new collector: from the start
      expect((await pass.streamAuditPass([sink], { batch: 50 }))[0]!.outcome).toBe("caught-up");
      expect(tlsReceiver.malformed).toEqual([]);
      const events = await chain();
      expect(tlsReceiver.messages.map((m) => JSON.parse(m.msg) as unknown)).toEqual(events);
      // The plain TCP collector does not speak TLS: refused, the cursor stays.
      const plain = syslogSink.syslogSink({ secure: true, host: "127.0.0.1", port: tcp.port });
      await append(1);
      const [r] = await pass.streamAuditPass([plain]);
      expect(r!.outcome).toBe("failed");
      expect((await ctx.db.auditSink.findUniqueOrThrow({ where: { name: "syslog" } })).sentSeq).toBe(events.at(-1)!.seq);
    });

    it("two instances racing: each event is sent once; a lease held elsewhere is respected until it runs out", async () => {
      await ctx.db.auditSink.deleteMany({ where: { name: "webhook" } });
      hook.batches.length = 0;
      await append(20);
      const sink = webhookSink(hook.url, secret);
      const results = await Promise.all([
        pass.streamAuditPass([sink], { holder: "instance-a", batch: 5 }),
        pass.streamAuditPass([sink], { holder: "instance-b", batch: 5 }),
      ]);
      const outcomes = results.map(([r]) => r!.outcome).sort();
      const got = hook.batches.flatMap((b) => b.lines.map((l) => l.seq));
      // One won the lease and sent all; the other found it taken, or (if it came after) found nothing left.
      expect(got).toEqual(await seqs());
      expect(outcomes).toContain("caught-up");
      expect(results.reduce((n, [r]) => n + r!.sent, 0)).toBe(got.length);

      // An instance that took the lease and stopped without handing it back (crash).
      const now = new Date();
      const cursor = (await ctx.db.auditSink.findUniqueOrThrow({ where: { name: "webhook" } })).sentSeq;
      expect(await state.takeSinkLease((await import("@/lib/db/sql")).direct(), "webhook", "crashed", now)).toBe(cursor);
      await append(2);
      expect(await pass.streamAuditPass([sink], { holder: "instance-b", now: () => now })).toEqual([
        { sink: "webhook", outcome: "leased-elsewhere", sent: 0 },
      ]);
      const later = new Date(now.getTime() + state.SINK_LEASE_MS + 1000);
      expect((await pass.streamAuditPass([sink], { holder: "instance-b", now: () => later }))[0]).toMatchObject({ outcome: "caught-up", sent: 2 });
      // The crashed instance, back, cannot move the cursor it read before.
      const sql = (await import("@/lib/db/sql")).direct();
      expect(await state.advanceCursor(sql, "webhook", "crashed", cursor, cursor + 2, later)).toBe(false);
      expect(hook.batches.flatMap((b) => b.lines.map((l) => l.seq))).toEqual(await seqs());
    });

    it("OTLP/HTTP logs: one record per event with seq, id, hash and type; a collector error keeps the cursor", async () => {
      const sink = otlpSink(otlp.url, "countersign-test");
      expect((await pass.streamAuditPass([sink], { batch: 100 }))[0]!.outcome).toBe("caught-up");
      const events = await chain();
      expect(otlp.records.map((r) => JSON.parse(r.body.stringValue) as unknown)).toEqual(events);
      const attr = (r: (typeof otlp.records)[number], k: string) => r.attributes.find((a) => a.key === k)?.value;
      for (const [i, r] of otlp.records.entries()) {
        expect(Number(attr(r, "audit.seq")?.intValue)).toBe(events[i]!.seq);
        expect(attr(r, "audit.hash")?.stringValue).toBe(events[i]!.hash);
        expect(attr(r, "audit.type")?.stringValue).toBe(events[i]!.type);
      }
      otlp.status = 500;
      await append(1);
      expect((await pass.streamAuditPass([sink]))[0]).toMatchObject({ outcome: "failed", errorClass: "http-status" });
      otlp.status = 200;
      expect((await pass.streamAuditPass([sink], { retryAfterMs: 0 }))[0]).toMatchObject({ outcome: "caught-up", sent: 1 });
      expect(otlp.records.map((r) => JSON.parse(r.body.stringValue) as { seq: number }).map((e) => e.seq)).toEqual(await seqs());
    });
  });
}
