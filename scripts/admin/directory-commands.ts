// The company's directory (docs/identity.md): which groups hold which roles,
// and the bearer tokens of its SCIM client.
import { listGroups, mapGroup, unmapGroup } from "@/lib/groups/group-mappings";
import { createScimToken, listScimTokens, revokeScimToken } from "@/lib/scim/scim-tokens";
import { one, switchFlag, UsageError, withAnywayHint, type Command, type Flags } from "./flags";

/** `scim token` takes its action as a word; each action takes only its own flag. */
function onlyFlag(f: Flags, allowed: string | null, action: string) {
  const extra = [...f.keys()].filter((k) => k !== allowed);
  if (extra.length) throw new UsageError(`scim token ${action} does not take --${extra.join(", --")}`);
}

export const directoryCommands: Record<string, Command> = {
  "group map": {
    usage: "group map --group G --role R [--anyway]",
    // --anyway: map to a role no policy uses yet (lib/policies/reachability.ts).
    flags: ["group", "role", "anyway"],
    run: (f) => withAnywayHint(() => mapGroup({ group: one(f, "group"), role: one(f, "role"), anyway: switchFlag(f, "anyway") }, "cli")),
  },
  "group unmap": {
    usage: "group unmap --group G --role R",
    flags: ["group", "role"],
    run: (f) => unmapGroup({ group: one(f, "group"), role: one(f, "role") }, "cli"),
  },
  "group list": {
    usage: "group list",
    flags: [],
    run: async () => ({
      groups: (await listGroups()).map((g) => ({
        name: g.name,
        seen: g.id !== null,
        source: g.source,
        members: g.members,
        roles: g.roles.map((r) => ({ role: r.role, from: r.source })),
      })),
    }),
  },
  "scim token": {
    usage: "scim token create [--name N] | scim token revoke --id sct_… | scim token list",
    flags: ["name", "id"],
    args: ["action"],
    run: async (f, [action]) => {
      switch (action) {
        case "create": {
          onlyFlag(f, "name", action);
          const made = await createScimToken({ name: f.has("name") ? one(f, "name") : undefined }, "cli");
          return { ...made, note: "shown once: paste it into the identity provider's SCIM settings now" };
        }
        case "revoke":
          onlyFlag(f, "id", action);
          return revokeScimToken(one(f, "id"), "cli");
        case "list":
          onlyFlag(f, null, action);
          return { tokens: await listScimTokens() };
        default:
          throw new UsageError("scim token needs create, revoke or list");
      }
    },
  },
};
