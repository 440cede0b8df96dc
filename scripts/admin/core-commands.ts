// Users, roles, services, redaction rules and receipt keys.
import { addUser } from "@/lib/users/add-user";
import { grantRole, revokeRole } from "@/lib/users/roles";
import { createService, disableService, updateNotifyWebhookUrl } from "@/lib/services/manage-services";
import { finishCredentialRotation, RotationInProgressError, rotateCredential } from "@/lib/services/rotate-credential";
import { AppError } from "@/lib/errors";
import { rotateReceiptKey } from "@/lib/receipts/signing-keys";
import { addRedactionRule, listRedactionRules, removeRedactionRule } from "@/lib/redaction-rules/manage-rules";
import { one, optional, switchFlag, UsageError, withAnywayHint, type Command } from "./flags";

export const coreCommands: Record<string, Command> = {
  "user add": {
    usage: "user add --email E [--name N] [--password P] [--role R]... [--anyway]",
    // --anyway: give roles no policy uses yet (lib/policies/reachability.ts).
    flags: ["email", "name", "password", "role", "anyway"],
    run: (f) =>
      withAnywayHint(() =>
        addUser({ email: one(f, "email"), name: optional(f, "name"), password: optional(f, "password"), roles: f.get("role") ?? [] }, "cli", {
          anyway: switchFlag(f, "anyway"),
        }),
      ),
  },
  "role grant": {
    usage: "role grant --email E --role R [--until ISO] [--anyway]",
    // --anyway: grant a role no policy uses yet (lib/policies/reachability.ts).
    flags: ["email", "role", "until", "anyway"],
    run: (f) =>
      withAnywayHint(() =>
        grantRole({ email: one(f, "email"), role: one(f, "role"), until: optional(f, "until"), anyway: switchFlag(f, "anyway") }, "cli"),
      ),
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
    usage: "service rotate-secret --slug S [--credential webhook-secret|api-token|callback-secret] [--finish]",
    flags: ["slug", "credential", "finish"],
    run: async (f) => {
      const slug = one(f, "slug");
      const credential = optional(f, "credential") ?? "webhook-secret";
      try {
        if (switchFlag(f, "finish")) {
          const r = await finishCredentialRotation(slug, credential, "cli");
          return r.credential === "webhook-secret" ? { slug: r.slug, rotation: r.rotation } : r;
        }
        const r = await rotateCredential(slug, credential, "cli");
        // Named as `service add` prints it: webhook_secret, api_token, callback_secret.
        return { slug: r.slug, [r.credential.replace("-", "_")]: r.value };
      } catch (e) {
        if (e instanceof RotationInProgressError) {
          const flag = credential === "webhook-secret" ? "" : ` --credential ${credential}`;
          throw new AppError(e.code, `${e.message} (service rotate-secret --slug ${e.slug}${flag} --finish)`);
        }
        throw e;
      }
    },
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
