import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "../src/index.js";

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter("120")).toBe(120);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    const now = Date.parse("2026-11-29T18:00:00Z");
    expect(parseRetryAfter("Sun, 29 Nov 2026 18:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("Sun, 29 Nov 2026 17:00:00 GMT", now)).toBe(0);
  });
});
