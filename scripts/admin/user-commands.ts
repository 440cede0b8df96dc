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
        roles: u.roles.map((r) => r.role),
        last_sign_in_at: u.lastSignInAt?.toISOString() ?? null,
        slack: u.slack ? { user_id: u.slack.userId, linked_at: u.slack.linkedAt?.toISOString() ?? null } : null,
      })),
    }),
  },
};
