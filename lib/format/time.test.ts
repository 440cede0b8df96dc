import { describe, expect, it } from "vitest";
import { humanDuration, humanSeconds, utcLabel } from "./time";

describe("humanDuration", () => {
  it.each([
    [0, "0 s"],
    [45_000, "45 s"],
    [60_000, "1 min"],
    [90_000, "1 min"],
    [12 * 60_000, "12 min"],
    [90 * 60_000, "1 h 30 min"],
    [24 * 3600_000, "24 h"],
    [48 * 3600_000, "2 d"],
    [50 * 3600_000, "2 d 2 h"],
    [-5_000, "0 s"],
  ])("%i ms reads %s", (ms, words) => expect(humanDuration(ms)).toBe(words));

  it("keeps seconds below an hour when asked (countdowns)", () => {
    expect(humanDuration(125_000, { seconds: true })).toBe("2 min 5 s");
    expect(humanDuration(120_000, { seconds: true })).toBe("2 min");
    expect(humanDuration(3_725_000, { seconds: true })).toBe("1 h 2 min");
  });

  it("words policy lifetimes in the largest units", () => {
    expect(humanSeconds(86_400)).toBe("24 h");
    expect(humanSeconds(3_600)).toBe("1 h");
    expect(humanSeconds(900)).toBe("15 min");
  });
});

describe("utcLabel", () => {
  it("is the ISO time in words, and a dash for nonsense", () => {
    expect(utcLabel(new Date("2026-11-30T13:40:12.345Z"))).toBe("2026-11-30 13:40:12 UTC");
    expect(utcLabel("not a date")).toBe("—");
  });
});
