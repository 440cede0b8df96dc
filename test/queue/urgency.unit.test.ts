import { describe, expect, it } from "vitest";
import { expiryUrgency } from "@/lib/queue/urgency";

const MIN = 60_000;
const H = 60 * MIN;

describe("expiryUrgency", () => {
  it("marks a request within the hour (amber) and 5 min (red) before it expires", () => {
    const expires = 90 * MIN;
    expect(expiryUrgency(0, expires, 0)).toBeNull();
    expect(expiryUrgency(0, expires, expires - 61 * MIN)).toBeNull();
    expect(expiryUrgency(0, expires, expires - 60 * MIN)).toBe("soon");
    expect(expiryUrgency(0, expires, expires - 16 * MIN)).toBe("soon");
    expect(expiryUrgency(0, expires, expires - 15 * MIN)).toBe("soon");
    expect(expiryUrgency(0, expires, expires - 6 * MIN)).toBe("soon");
    expect(expiryUrgency(0, expires, expires - 5 * MIN)).toBe("very-soon");
    expect(expiryUrgency(0, 4 * MIN, 0)).toBe("very-soon");
    expect(expiryUrgency(0, 10 * MIN, 0)).toBe("soon");
    // The default policy's hour: amber from the start.
    expect(expiryUrgency(0, H, 0)).toBe("soon");
  });

  it("marks a long-lived request by its share of the lifetime (20 %, 5 %)", () => {
    const expires = 24 * H;
    expect(expiryUrgency(0, expires, 19 * H)).toBeNull();
    expect(expiryUrgency(0, expires, 20 * H)).toBe("soon");
    expect(expiryUrgency(0, expires, expires - 72 * MIN)).toBe("very-soon");
  });

  it("marks nothing once expired", () => {
    expect(expiryUrgency(0, H, H)).toBeNull();
    expect(expiryUrgency(0, H, 2 * H)).toBeNull();
  });
});
