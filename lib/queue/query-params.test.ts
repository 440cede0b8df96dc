import { describe, expect, it } from "vitest";
import { carriedSearch, parseCarried, parseQueueQuery } from "./query-params";

describe("the queue's query carried to a request's page", () => {
  it("keeps filters and order, drops view, status and cursors", () => {
    const { raw } = parseQueueQuery({
      effects: "write",
      order: "expiring",
      view: "mine",
      status: "pending",
      act: "1700000000000.apr_x",
      q: "refund",
    });
    expect(carriedSearch(raw)).toBe("?q=refund&effects=write&order=expiring");
  });

  it("is empty for the plain queue", () => {
    expect(carriedSearch({})).toBe("");
  });

  it("reads back what it wrote, and drops what is not valid", () => {
    expect(parseCarried("?effects=write&order=expiring")).toEqual({
      query: { effects: "write", order: "expiring" },
      search: "?effects=write&order=expiring",
    });
    expect(parseCarried("effects=explosive&order=expiring&status=approved")).toEqual({ query: { order: "expiring" }, search: "?order=expiring" });
    expect(parseCarried("")).toEqual({ query: {}, search: "" });
    expect(parseCarried(`q=${"x".repeat(3000)}`)).toEqual({ query: {}, search: "" });
  });
});
