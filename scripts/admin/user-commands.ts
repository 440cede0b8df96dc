// Disabling and enabling accounts (docs/operations.md), unlinking a Slack
// account (docs/slack.md), and listing users.
import { disableUser, enableUser } from "@/lib/users/disable-user";
import { unlinkSlackUser } from "@/lib/slack/slack-identity";
import { listUsers } from "@/lib/users/list-users";
import { one, type Command } from "./flags";

export const userCommands: Record<string, Command> = {
  "user disable": {
    usage: "user disable --email E",
    flags: ["email"],
    run: (f) => disableUser(one(f, "email"), "cli"),
  },
  "user slack-unlink": {
    usage: "user slack-unlink --email E",
    flags: ["email"],
    run: (f) => unlinkSlackUser(one(f, "email"), "cli"),
  },
  "user enable": {
    usage: "user enable --email E",
    flags: ["email"],
    run: (f) => enableUser(one(f, "email"), "cli"),
  },
  "user list": {
    usage: "user list",
    flags: [],
    run: async () => ({
      users: (await listUsers()).map((u) => ({
        email: u.email,
        name: u.name,
        disabled: u.disabled,
        roles: [...new Set(u.roles.map((r) => r.role))],
        // The ones held through a directory group, each with its groups.
        roles_via_group: u.roles.reduce<Record<string, string[]>>(
          (acc, r) => (r.viaGroup ? { ...acc, [r.role]: [...(acc[r.role] ?? []), r.viaGroup] } : acc),
          {},
        ),
        // The time-bound ones, each with its end.
        roles_until: Object.fromEntries(u.roles.flatMap((r) => (r.until ? [[r.role, r.until.toISOString()]] : []))),
        last_sign_in_at: u.lastSignInAt?.toISOString() ?? null,
        slack: u.slack ? { user_id: u.slack.userId, linked_at: u.slack.linkedAt?.toISOString() ?? null } : null,
      })),
    }),
  },
};
