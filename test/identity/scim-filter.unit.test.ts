// SCIM filters and request bodies, without a server: which expressions the
// parser accepts for our attributes, how they match (case-insensitively
// where RFC 7643 says so), which exact values narrow a database lookup, and
// Entra ID's spellings made standard. The HTTP behaviour is in scim.suite.ts.
import { describe, expect, it } from "vitest";
import { exactLookups, GROUP_FILTER_ATTRIBUTES, matchesScimFilter, parseScimFilter, USER_FILTER_ATTRIBUTES } from "@/lib/scim/filter";
import { normalizePatch } from "@/lib/scim/scim-input";
import { groupsFromClaim } from "@/lib/groups/sign-in-groups";

const dana = {
  id: "usr_1",
  userName: "dana@example.com",
  externalId: "00uAbC",
  displayName: "Dana Reviewer",
  active: true,
  emails: [{ value: "dana@example.com", type: "work", primary: true }],
};
const matches = (filter: string, resource: Record<string, unknown> = dana) =>
  matchesScimFilter(parseScimFilter(filter, USER_FILTER_ATTRIBUTES), resource, USER_FILTER_ATTRIBUTES);

describe("SCIM filters", () => {
  it("match eq, co, sw, pr, and, or, not; userName and emails case-insensitively, externalId exactly", () => {
    expect(matches('userName eq "DANA@example.com"')).toBe(true);
    expect(matches('externalId eq "00uabc"')).toBe(false);
    expect(matches('externalId eq "00uAbC"')).toBe(true);
    expect(matches('userName co "@EXAMPLE"')).toBe(true);
    expect(matches('userName sw "dan"')).toBe(true);
    expect(matches('userName sw "ana"')).toBe(false);
    expect(matches("externalId pr")).toBe(true);
    expect(matches("externalId pr", { ...dana, externalId: undefined })).toBe(false);
    expect(matches('emails.value eq "Dana@Example.com"')).toBe(true);
    expect(matches('emails[value eq "dana@example.com"]')).toBe(true);
    expect(matches('userName eq "x@example.com" or displayName eq "dana reviewer"')).toBe(true);
    expect(matches('userName eq "dana@example.com" and active eq false')).toBe(false);
    expect(matches('active eq "True"')).toBe(true);
    expect(matches('not (userName eq "dana@example.com")')).toBe(false);
  });

  it("refuse what they cannot evaluate as invalidFilter, naming the attribute", () => {
    for (const [filter, detail] of [
      ['password eq "x"', "the attribute 'password' cannot be filtered on here"],
      ['userName eq "a" and (', "the filter is not a valid SCIM filter expression"],
      ["emails pr", "'emails' is complex: name one of its parts, such as emails.value"],
      ['members.value eq "u"', "the attribute 'members' cannot be filtered on here"],
      ["x".repeat(5000), "the filter is too long"],
    ] as const) {
      expect(() => parseScimFilter(filter, USER_FILTER_ATTRIBUTES), filter.slice(0, 40)).toThrow(
        expect.objectContaining({ status: 400, scimType: "invalidFilter", message: detail }),
      );
    }
    expect(parseScimFilter('displayName eq "Ops"', GROUP_FILTER_ATTRIBUTES).branches).toHaveLength(1);
  });

  it("give the exact values every branch requires, or null when one branch could match anything", () => {
    const attrs = ["userName", "emails.value", "externalId", "id"];
    expect(exactLookups(parseScimFilter('userName eq "a@example.com"', USER_FILTER_ATTRIBUTES), attrs)).toEqual({ userName: ["a@example.com"] });
    expect(exactLookups(parseScimFilter('externalId eq "x" or emails.value eq "b@example.com"', USER_FILTER_ATTRIBUTES), attrs)).toEqual({
      externalId: ["x"],
      "emails.value": ["b@example.com"],
    });
    expect(exactLookups(parseScimFilter('userName eq "a" or userName sw "b"', USER_FILTER_ATTRIBUTES), attrs)).toBeNull();
    expect(exactLookups(parseScimFilter('not (userName eq "a")', USER_FILTER_ATTRIBUTES), attrs)).toBeNull();
  });
});

describe("PATCH bodies", () => {
  it("take Entra ID's capitalised operations and text booleans as the standard ones", () => {
    expect(
      normalizePatch({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [
          { op: "Replace", path: "active", value: "False" },
          { op: "Add", value: { Active: "true", displayName: "True" } },
          { op: "Remove", path: 'members[value eq "u"]' },
        ],
      }),
    ).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [
        { op: "replace", path: "active", value: false },
        { op: "add", value: { Active: true, displayName: "True" } },
        { op: "remove", path: 'members[value eq "u"]' },
      ],
    });
    expect(normalizePatch("not a body")).toBe("not a body");
  });
});

describe("the groups claim", () => {
  it("is a list of names, one name, or absent; anything else is unusable (null), never no groups", () => {
    expect(groupsFromClaim(["a", "b", "a"])).toEqual(["a", "b"]);
    expect(groupsFromClaim("ops")).toEqual(["ops"]);
    expect(groupsFromClaim(undefined)).toEqual([]);
    expect(groupsFromClaim(null)).toEqual([]);
    expect(groupsFromClaim([])).toEqual([]);
    expect(groupsFromClaim(3)).toBeNull();
    expect(groupsFromClaim([{ name: "a" }])).toBeNull();
    expect(groupsFromClaim([""])).toBeNull();
    expect(groupsFromClaim(["a\u202eb"])).toBeNull();
    expect(groupsFromClaim(Array.from({ length: 1001 }, (_, i) => `g${i}`))).toBeNull();
  });
});
