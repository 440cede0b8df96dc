import { describe, expect, it } from "vitest";
import { utcIso } from "./read-snapshot";

describe("utcIso", () => {
  it("reads every stored timestamp form as the same UTC instant", () => {
    const iso = "2026-11-29T18:00:00.120Z";
    for (const stored of [
      "2026-11-29T18:00:00.120+00:00", // Prisma on SQLite
      "2026-11-29 18:00:00.12", // PostgreSQL timestamp(3) as text (trailing zeros dropped)
      "2026-11-29T18:00:00.120Z",
      "2026-11-29T19:00:00.120+01:00",
      Date.parse(iso), // Prisma's unixepoch-ms option
      new Date(iso),
    ]) {
      expect(utcIso(stored)).toBe(iso);
    }
    expect(utcIso("2026-11-29 18:00:00")).toBe("2026-11-29T18:00:00.000Z");
    expect(utcIso("2026-11-29 18:00:00.5")).toBe("2026-11-29T18:00:00.500Z");
  });
});
