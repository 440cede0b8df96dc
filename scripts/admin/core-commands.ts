// Users, roles, services, redaction rules and receipt keys.
import { addUser } from "@/lib/users/add-user";
import { grantRole, revokeRole } from "@/lib/users/roles";
import { createService, disableService, finishRotation, rotateWebhookSecret, updateNotifyWebhookUrl } from "@/lib/services/manage-services";
import { rotateReceiptKey } from "@/lib/receipts/signing-keys";
import { addRedactionRule, listRedactionRules, removeRedactionRule } from "@/lib/redaction-rules/manage-rules";
import { one, optional, UsageError, type Command } from "./flags";

export const coreCommands: Record<string, Command> = {
  "user add": {
    usage: "user add --email E [--name N] [--password P] [--role R]...",
    flags: ["email", "name", "password", "role"],
    run: (f) => addUser({ email: one(f, "email"), name: optional(f, "name"), password: optional(f, "password"), roles: f.get("role") ?? [] }, "cli"),
  },
  "role grant": {
    usage: "role grant --email E --role R",
    flags: ["email", "role"],
    run: (f) => grantRole({ email: one(f, "email"), role: one(f, "role") }, "cli"),
  },
  "role revoke": {
    usage: "role revoke --email E --role R",
    flags: ["email", "role"],
    run: (f) => revokeRole({ email: one(f, "email"), role: one(f, "role") }, "cli"),
  },
  "service add": {
    usage: "service add --slug S [--callback-url U]",
    flags: ["slug", "callback-url"],
    run: (f) => createService({ slug: one(f, "slug"), callbackUrl: optional(f, "callback-url") }, "cli"),
  },
  "service rotate-secret": {
    usage: "service rotate-secret --slug S [--finish]",
    flags: ["slug", "finish"],
    run: (f) => (f.has("finish") ? finishRotation(one(f, "slug"), "cli") : rotateWebhookSecret(one(f, "slug"), "cli")),
  },
  "service disable": {
    usage: "service disable --slug S",
    flags: ["slug"],
    run: (f) => disableService(one(f, "slug"), "cli"),
  },
  "service set-notify-webhook": {
    usage: "service set-notify-webhook --slug S (--url U | --clear)",
    flags: ["slug", "url", "clear"],
    run: (f) => {
      // Exactly one of the two: a forgotten --url must not clear the URL silently.
      if (f.has("url") === f.has("clear")) throw new UsageError("give either --url U or --clear");
      if (f.has("clear") && f.get("clear")!.join() !== "true") throw new UsageError("--clear takes no value");
      const url = f.has("url") ? one(f, "url") : null;
      if (url === "") throw new UsageError("--url needs a URL (--clear removes it)");
      return updateNotifyWebhookUrl({ slug: one(f, "slug"), notifyWebhookUrl: url }, "cli");
    },
  },
  "redaction add": {
    usage: "redaction add --name N --pattern REGEX",
    flags: ["name", "pattern"],
    run: (f) => addRedactionRule({ name: one(f, "name"), pattern: one(f, "pattern") }, "cli"),
  },
  "redaction list": { usage: "redaction list", flags: [], run: () => listRedactionRules() },
  "redaction remove": {
    usage: "redaction remove --name N",
    flags: ["name"],
    run: (f) => removeRedactionRule(one(f, "name"), "cli"),
  },
  "receipt-key rotate": { usage: "receipt-key rotate", flags: [], run: () => rotateReceiptKey("cli") },
};
