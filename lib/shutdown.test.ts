// abortOnShutdown: what every long-poll and callback attempt uses instead of
// AbortSignal.any with the process-long shutdown signal. Stopping the
// instance itself is tested end to end in test/hardening/graceful-shutdown.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { abortOnShutdown, shutdownSignal } from "./shutdown";

describe("abortOnShutdown", () => {
  it("follows its input and, once released, leaves nothing on the shutdown signal or the input", () => {
    const before = getEventListeners(shutdownSignal(), "abort").length;
    const inputs = Array.from({ length: 1000 }, () => new AbortController());
    const scopes = inputs.map((c) => abortOnShutdown(c.signal));
    expect(getEventListeners(shutdownSignal(), "abort")).toHaveLength(before + 1000);
    inputs[3]!.abort(new Error("client left"));
    expect(scopes[3]!.signal.aborted).toBe(true);
    expect((scopes[3]!.signal.reason as Error).message).toBe("client left");
    expect(scopes[4]!.signal.aborted).toBe(false);
    for (const s of scopes) s.release();
    expect(getEventListeners(shutdownSignal(), "abort")).toHaveLength(before);
    expect(inputs.every((c) => getEventListeners(c.signal, "abort").length === 0)).toBe(true);
    // A released scope no longer follows its input.
    inputs[5]!.abort();
    expect(scopes[5]!.signal.aborted).toBe(false);
  });

  it("is aborted at once when its input already was", () => {
    const scope = abortOnShutdown(AbortSignal.abort(new Error("gone")));
    expect(scope.signal.aborted).toBe(true);
    scope.release();
  });
});
