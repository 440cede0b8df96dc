// The execution report from the executor's side, against the local fake
// Countersign: the client's POST /result (wire format, answer check, error
// codes), the result digest (known answers), and the port's reportExecution
// and run (what is reported for a result and for a thrown error, and that
// reporting never throws into the agent's path and is bounded in time).
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ApprovalPort,
  CONTRACT_ERROR_CODES,
  errorClassName,
  resultDigest,
  type ApprovedPortDecision,
  type ExecutionReport,
  type PortCall,
} from "../src/index.js";
import {
  approvalById,
  caught,
  client,
  decide,
  fake,
  newCall,
  received,
  resultBehaviour,
  results,
  TOKEN,
  useFakeCountersign,
} from "./fake-countersign.js";

useFakeCountersign();

const SALT = "q3Jm1f0bP6yK2m9cVwX4dA7sLhE8uTzR5nYoGiCkQpU";
const sha256 = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
const report = (over: Partial<ExecutionReport> = {}): ExecutionReport => ({
  status: "succeeded",
  result_digest: sha256("anything"),
  finished_at: new Date().toISOString(),
  ...over,
});

/** A request of the fake, decided and consumed as `decision`. */
async function consumed(decision: "approved" | "denied" = "approved") {
  const c = client();
  const call = newCall();
  const { approval_id } = await c.requestApproval(call);
  decide(approval_id, decision);
  await c.consume(approval_id, call);
  return { c, approval_id };
}

/** A port of the fake whose requests the fake approves as soon as they arrive. */
function approvingPort(options: ConstructorParameters<typeof ApprovalPort>[1] = {}) {
  return new ApprovalPort(client(), {
    timeoutMs: 10_000,
    jwks: { keys: [fake.publicJwk] },
    onRequest: (created) => setTimeout(() => decide(created.approval_id, "approved"), 20),
    ...options,
  });
}

const reportsOf = (approvalId: string) => results.filter((r) => r.approvalId === approvalId);

afterEach(() => {
  resultBehaviour.dropNext = 0;
  resultBehaviour.hangNext = 0;
  vi.restoreAllMocks();
});

describe("client.reportExecution", () => {
  it("POSTs exactly status, result_digest and finished_at with the bearer token, and the state then carries the execution", async () => {
    const { c, approval_id } = await consumed();
    const finished_at = "2026-01-02T03:04:05.678+01:00";
    const sent = { ...report({ status: "failed", finished_at }), extra: "never sent" } as ExecutionReport;
    const recorded = await c.reportExecution(approval_id, sent);

    expect(recorded).toEqual({
      approval_id,
      status: "failed",
      result_digest: sent.result_digest,
      finished_at: "2026-01-02T02:04:05.678Z",
      reported_at: expect.any(String),
    });
    const [received] = reportsOf(approval_id);
    expect(received!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(received!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(received!.rawBody)).toEqual({ status: "failed", result_digest: sent.result_digest, finished_at });
    expect((await c.getApproval(approval_id)).execution).toEqual({
      status: "failed",
      result_digest: sent.result_digest,
      finished_at: "2026-01-02T02:04:05.678Z",
      reported_at: recorded.reported_at,
    });
  });

  it("maps already-reported, not-consumed, not-found and invalid-request, all contract codes", async () => {
    expect(CONTRACT_ERROR_CODES).toEqual(expect.arrayContaining(["already-reported", "not-consumed"]));
    const { c, approval_id } = await consumed();
    await c.reportExecution(approval_id, report());
    let error = await caught(c.reportExecution(approval_id, report()));
    expect([error.code, error.status]).toEqual(["already-reported", 409]);

    const pending = await c.requestApproval(newCall());
    error = await caught(c.reportExecution(pending.approval_id, report()));
    expect([error.code, error.status]).toEqual(["not-consumed", 409]);
    const denied = await consumed("denied");
    error = await caught(denied.c.reportExecution(denied.approval_id, report()));
    expect([error.code, error.status]).toEqual(["not-consumed", 409]);

    error = await caught(c.reportExecution("apr_nope", report()));
    expect([error.code, error.status]).toEqual(["not-found", 404]);

    const other = await consumed();
    error = await caught(other.c.reportExecution(other.approval_id, report({ result_digest: "sha256:ABC" })));
    expect([error.code, error.status]).toEqual(["invalid-request", 422]);
    expect(error.issues).toEqual([{ path: "result_digest", message: expect.any(String) }]);
    // Refused, so still reportable.
    expect((await other.c.reportExecution(other.approval_id, report())).approval_id).toBe(other.approval_id);
  });

  it("refuses an answer outside the contract", async () => {
    const error = await caught(client().reportExecution("script.recorded-without-digest", report()));
    expect([error.code, error.status]).toEqual(["unexpected-response", 200]);
    expect(error.message).toContain("result_digest");
  });
});

describe("resultDigest", () => {
  it("is sha256 of salt + '.' + JCS(value): known answers", () => {
    const value = { é: "ü", b: [1, undefined, "x"], a: 1, dropped: undefined };
    expect(resultDigest(value, SALT)).toBe("sha256:2dbaffee1deb78e45dd04c423a8e0e3d69ff878cb1964a5dcfffa82022cbedc4");
    expect(resultDigest(value, SALT)).toBe(sha256(`${SALT}.{"a":1,"b":[1,null,"x"],"é":"ü"}`));
    // undefined (a tool that returns nothing) is null.
    expect(resultDigest(undefined, SALT)).toBe("sha256:6f81d2753ba935d00781e0f692d9b0faff137f1c29a2a327602a5d41ab9abe04");
    expect(resultDigest(null, SALT)).toBe(resultDigest(undefined, SALT));
    // A thrown error is reported as {"error": <class name>}.
    expect(resultDigest({ error: errorClassName(new TypeError("secret 4111")) }, SALT)).toBe(
      "sha256:95b4732203a704765bbfb841752c6add6b6dde511fd1c0ecd7d86a62f964d580",
    );
    // Another salt, another digest.
    expect(resultDigest(value, "A".repeat(22))).not.toBe(resultDigest(value, SALT));
  });

  it("makes any value JSON: toJSON, string forms for what JSON cannot hold, and never throws", () => {
    const at = new Date("2026-01-02T03:04:05.000Z");
    expect(resultDigest({ at }, SALT)).toBe(sha256(`${SALT}.{"at":"2026-01-02T03:04:05.000Z"}`));
    expect(resultDigest({ n: Number.NaN, big: 10n, inf: -Infinity }, SALT)).toBe(sha256(`${SALT}.{"big":"10","inf":"-Infinity","n":"NaN"}`));
    expect(resultDigest(12n, SALT)).toBe(sha256(`${SALT}."12"`));
    expect(resultDigest("\ud800", SALT)).toBe(sha256(`${SALT}."\ufffd"`));
    expect(resultDigest(JSON.parse('{"__proto__": 1}'), SALT)).toBe(sha256(`${SALT}.{"__proto__":1}`));
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(resultDigest(cyclic, SALT)).toBe(sha256(`${SALT}.{"a":1,"self":"[object Object]"}`));
    expect(resultDigest(Symbol("s"), SALT)).toBe(sha256(`${SALT}."Symbol(s)"`));
    expect(() => resultDigest(Object.create(null), SALT)).not.toThrow();
    expect(() => resultDigest({}, "short")).toThrow(RangeError);
  });

  it("errorClassName names the error's class", () => {
    class PaymentDeclined extends Error {}
    expect(errorClassName(new PaymentDeclined("card 4111"))).toBe("PaymentDeclined");
    expect(errorClassName(new TypeError("x"))).toBe("TypeError");
    expect(errorClassName("text")).toBe("string");
    expect(errorClassName(null)).toBe("null");
  });
});

describe("ApprovalPort execution reports", () => {
  class PaymentDeclined extends Error {}

  it("run: runs the approved arguments once and reports succeeded with the salted digest of the result", async () => {
    const port = approvingPort();
    const call: PortCall = newCall("payments.pay", { account: "AC-9", amount: 5 });
    const execute = vi.fn(async (args: Readonly<Record<string, unknown>>) => ({ paid: args.amount, ref: "tx_1" }));
    const ran = await port.run(call, execute);

    expect(ran).toMatchObject({ allowed: true, result: { paid: 5, ref: "tx_1" } });
    if (!ran.allowed) throw new Error("unreachable");
    expect(execute).toHaveBeenCalledTimes(1);
    expect(execute.mock.calls[0]![0]).toBe(ran.decision.arguments);
    expect(Object.isFrozen(execute.mock.calls[0]![0])).toBe(true);

    // The salt is the request's, reachable from the decision but out of its keys and JSON.
    const salt = ran.decision.argsSalt!;
    expect(salt).toBe(webhookSaltOf(ran.decision));
    expect(Object.keys(ran.decision)).not.toContain("argsSalt");
    expect(JSON.stringify(ran.decision)).not.toContain(salt);

    const [received] = reportsOf(ran.decision.approvalId!);
    const body = JSON.parse(received!.rawBody);
    expect(body).toEqual({ status: "succeeded", result_digest: resultDigest({ paid: 5, ref: "tx_1" }, salt), finished_at: expect.any(String) });
    expect(received!.rawBody).not.toContain("tx_1");
    expect(ran.execution).toMatchObject({ approval_id: ran.decision.approvalId, status: "succeeded", result_digest: body.result_digest });
    expect(approvalById(ran.decision.approvalId!)!.state.execution).toMatchObject({ status: "succeeded" });
  });

  it("run: a tool that throws is reported failed (digest of its class name) and its error is rethrown as it was", async () => {
    const onReportError = vi.fn();
    const port = approvingPort({ onReportError });
    const declined = new PaymentDeclined("card 4111 1111 declined");
    let decision: ApprovedPortDecision | undefined;
    const thrown = await port
      .run(newCall(), (_args, d) => {
        decision = d;
        throw declined;
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(thrown).toBe(declined);
    const [received] = reportsOf(decision!.approvalId!);
    expect(JSON.parse(received!.rawBody)).toMatchObject({
      status: "failed",
      result_digest: resultDigest({ error: "PaymentDeclined" }, decision!.argsSalt!),
    });
    expect(received!.rawBody).not.toContain("4111");
    expect(onReportError).not.toHaveBeenCalled();
  });

  it("run: a denied call does not run and nothing is reported", async () => {
    const port = new ApprovalPort(client(), {
      timeoutMs: 10_000,
      jwks: { keys: [fake.publicJwk] },
      onRequest: (created) => setTimeout(() => decide(created.approval_id, "denied"), 20),
    });
    const execute = vi.fn();
    const ran = await port.run(newCall(), execute);
    expect(ran).toMatchObject({ allowed: false, decision: { allowed: false, code: "denied" } });
    expect(execute).not.toHaveBeenCalled();
    expect(reportsOf(ran.decision.approvalId!)).toEqual([]);
  });

  it("reportExecution: a failure result is digested as given; a second report goes to onReportError, never thrown", async () => {
    const errors: unknown[] = [];
    const port = approvingPort({ onReportError: (error, context) => errors.push([error, context]) });
    const decision = await port.ask(newCall());
    if (!decision.allowed) throw new Error("not approved");
    const failure = { isError: true, content: [{ type: "text", text: "declined" }] };
    const first = await port.reportExecution(decision, { status: "failed", result: failure });
    expect(first).toMatchObject({ status: "failed", result_digest: resultDigest(failure, decision.argsSalt!) });

    expect(await port.reportExecution(decision, { status: "succeeded", result: 1 })).toBeUndefined();
    expect(errors).toEqual([
      [expect.objectContaining({ code: "already-reported" }), { approvalId: decision.approvalId, tool: decision.receipt.tool }],
    ]);
  });

  it("reportExecution: a denied decision or a copy without its salt is not reported, and the hook's own error is swallowed", async () => {
    const errors: unknown[] = [];
    const port = approvingPort({
      onReportError: (error) => {
        errors.push(error);
        throw new Error("the hook broke");
      },
    });
    const decision = await port.ask(newCall());
    if (!decision.allowed) throw new Error("not approved");
    await expect(port.reportExecution({ ...decision }, { status: "succeeded", result: 1 })).resolves.toBeUndefined();
    await expect(
      port.reportExecution({ allowed: false, code: "denied", reason: "no", revisions: [], reviews: [] }, { status: "succeeded", result: 1 }),
    ).resolves.toBeUndefined();
    expect(errors).toEqual([expect.any(TypeError), expect.any(TypeError)]);
    expect(reportsOf(decision.approvalId!)).toEqual([]);
  });

  it("reportExecution: a connection cut once is retried; cut twice, the error goes to the default one-line warning without values", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const port = approvingPort();
    const once = await port.ask(newCall("payments.pay", { account: "AC-SECRET", amount: 77 }));
    if (!once.allowed) throw new Error("not approved");
    resultBehaviour.dropNext = 1;
    expect(await port.reportExecution(once, { status: "succeeded", result: { ok: "RESULT-SECRET" } })).toMatchObject({ status: "succeeded" });
    expect(warn).not.toHaveBeenCalled();

    const twice = await port.ask(newCall("payments.pay", { account: "AC-SECRET", amount: 77 }));
    if (!twice.allowed) throw new Error("not approved");
    resultBehaviour.dropNext = 2;
    expect(await port.reportExecution(twice, { status: "succeeded", result: { ok: "RESULT-SECRET" } })).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    const line = String(warn.mock.calls[0]![0]);
    expect(line).toBe(`countersign: the execution report of ${twice.approvalId} was not recorded (network-error)`);
    expect(line).not.toMatch(/SECRET|77/);
  });

  it("reportExecution: a Countersign that never answers delays the result by at most reportTimeoutMs", async () => {
    const onReportError = vi.fn();
    const port = approvingPort({ reportTimeoutMs: 400, onReportError });
    const started = { at: 0 };
    resultBehaviour.hangNext = 1;
    const ran = await port.run(newCall(), () => {
      started.at = Date.now();
      return "done";
    });
    // The fake never answers; under the 5 s default, so the option is what ended the wait.
    expect(Date.now() - started.at).toBeLessThan(4000);
    expect(ran).toMatchObject({ allowed: true, result: "done", execution: undefined });
    expect(onReportError).toHaveBeenCalledWith(expect.objectContaining({ code: "timeout" }), expect.any(Object));
  });
});

/** The args_salt of the webhook that asked for `decision`'s request, as the fake received it. */
function webhookSaltOf(decision: ApprovedPortDecision): string {
  const asked = received
    .map((r) => JSON.parse(r.rawBody.toString("utf8")).data as { run_id: string; call_id: string; args_salt: string })
    .filter((data) => data.run_id === decision.receipt.run_id && data.call_id === decision.receipt.call_id);
  expect(asked).toHaveLength(1);
  return asked[0]!.args_salt;
}
