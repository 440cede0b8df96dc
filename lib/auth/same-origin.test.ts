// The same-origin rule for state-changing requests: APP_URL's scheme, host and
// port, exactly; never what Host or X-Forwarded-Host say (they are not inputs).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSameOrigin } from "./same-origin";

describe("same-origin check against APP_URL", () => {
  it("accepts exactly APP_URL's origin, with or without a path or trailing slash in APP_URL", () => {
    expect(isSameOrigin("https://countersign.example", "https://countersign.example")).toBe(true);
    expect(isSameOrigin("https://countersign.example", "https://countersign.example/")).toBe(true);
    expect(isSameOrigin("http://localhost:3000", "http://localhost:3000")).toBe(true);
    expect(isSameOrigin("https://countersign.example", "https://countersign.example:443/base")).toBe(true);
  });

  it("refuses another scheme, host or port, a missing Origin and the opaque origin", () => {
    const app = "https://countersign.example";
    for (const origin of [
      "http://countersign.example", // downgraded scheme
      "https://countersign.example:8443",
      "https://evil.example",
      "https://countersign.example.evil.example",
      "https://evil.example/countersign.example",
      "null",
      "",
      null,
      undefined,
    ]) {
      expect(isSameOrigin(origin, app), String(origin)).toBe(false);
    }
    expect(isSameOrigin("https://localhost:3000", "http://localhost:3000")).toBe(false);
    expect(isSameOrigin("http://127.0.0.1:3000", "http://localhost:3000")).toBe(false);
  });

  it("accepts no Origin but APP_URL's own, whatever the generated origin", () => {
    const scheme = fc.constantFrom("http", "https");
    const host = fc.constantFrom("countersign.example", "evil.example", "localhost", "127.0.0.1", "[::1]", "countersign.example.evil.example");
    const port = fc.constantFrom("", ":80", ":443", ":3000", ":8443");
    fc.assert(
      fc.property(fc.tuple(scheme, host, port), fc.tuple(scheme, host, port), ([s1, h1, p1], [s2, h2, p2]) => {
        const app = `${s1}://${h1}${p1}`;
        const origin = new URL(`${s2}://${h2}${p2}`).origin;
        // An independent oracle: same scheme, same host, same port once defaults are filled in.
        const portOf = (s: string, p: string) => (p ? p.slice(1) : s === "https" ? "443" : "80");
        const same = s1 === s2 && h1 === h2 && portOf(s1, p1) === portOf(s2, p2);
        expect(isSameOrigin(origin, app), `${origin} vs ${app}`).toBe(same);
      }),
    );
  });
});
