import { describe, expect, it } from "vitest";
import { firstScreenSeen } from "./arguments-seen";

const band = { top: 0, bottom: 557 }; // 844 px less a 287 px bar

describe("firstScreenSeen", () => {
  it("a short block counts once all of it is above the bar", () => {
    expect(firstScreenSeen({ top: 300, bottom: 450 }, band)).toBe(true);
    expect(firstScreenSeen({ top: 500, bottom: 650 }, band)).toBe(false); // half under the bar
    expect(firstScreenSeen({ top: 900, bottom: 1050 }, band)).toBe(false); // below the fold
  });

  it("a long block counts once half the uncovered window shows it", () => {
    expect(firstScreenSeen({ top: 700, bottom: 5000 }, band)).toBe(false);
    expect(firstScreenSeen({ top: 400, bottom: 5000 }, band)).toBe(false); // 157 px of it
    expect(firstScreenSeen({ top: 270, bottom: 5000 }, band)).toBe(true); // 287 px ≥ 278
    expect(firstScreenSeen({ top: -2000, bottom: 3000 }, band)).toBe(true); // scrolled into its middle
  });

  it("scrolled past (above the window) no longer counts as in view", () => {
    expect(firstScreenSeen({ top: -600, bottom: -100 }, band)).toBe(false);
  });

  it("nothing to see: never seen this way", () => {
    expect(firstScreenSeen({ top: 10, bottom: 10 }, band)).toBe(false);
    expect(firstScreenSeen({ top: 10, bottom: 100 }, { top: 0, bottom: 0 })).toBe(false);
  });
});
