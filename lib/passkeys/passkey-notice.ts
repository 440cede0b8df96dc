// The security notice a user gets when a passkey is added to or removed from
// their account (docs/passkeys.md): an email through the durable outbox,
// written in the same transaction as the change, and sent whatever channels
// the user chose on /settings (deliver-notifications.ts lets these kinds
// through). It names the passkey and the time and says what to do if it was
// not them; it carries nothing secret (no credential, key or session id).
import "server-only";
import type { Sql } from "../db/sql";
import { env } from "../env";
import { utcLabel } from "../format/time";
import { emailChannel } from "../notifications/mailer";
import { queueMessage, type SecurityNoticeKind } from "../notifications/queue-message";

export type PasskeyChange = (
  | { kind: "passkey_registered"; name: string; at: Date; confirmedBy: { passkey: string } | "sign-in" }
  | { kind: "passkey_removed"; name: string; at: Date }
) & { kind: SecurityNoticeKind };

export type PasskeyNotice = { subject: string; text: string; html: string };

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A name the user typed, on one bounded line (names are refused with control or format characters already). */
function quoted(name: string): string {
  const flat = name.replace(/\s+/g, " ").trim();
  return `"${flat.length > 100 ? `${flat.slice(0, 99)}…` : flat}"`;
}

/** The words of the notice, as plain text paragraphs (the HTML part is the same paragraphs, escaped). */
export function composePasskeyNotice(change: PasskeyChange, account: { email: string; settingsUrl: string }): PasskeyNotice {
  const when = utcLabel(change.at);
  const name = quoted(change.name);
  const notYou =
    change.kind === "passkey_registered"
      ? "If this was not you, someone else is signed in as you and can now sign votes with that passkey. Remove it at once on your settings page, then tell your Countersign administrator: they can disable your account, which ends every session."
      : "If this was not you, someone else is signed in as you. Tell your Countersign administrator at once: they can disable your account, which ends every session. Then check your passkeys on your settings page.";
  const paragraphs =
    change.kind === "passkey_registered"
      ? [
          `A passkey named ${name} was added to your Countersign account (${account.email}) at ${when}.`,
          change.confirmedBy === "sign-in"
            ? "It is your first passkey, added within 5 minutes of signing in."
            : `It was confirmed with your passkey ${quoted(change.confirmedBy.passkey)}.`,
          "It can now sign your votes on requests whose policy requires a passkey. If this was you, there is nothing to do.",
          notYou,
        ]
      : [
          `The passkey named ${name} was removed from your Countersign account (${account.email}) at ${when}.`,
          "It signs no new vote; the votes it signed before still verify. If this was you, there is nothing to do.",
          notYou,
        ];
  const why = "You get this security notice whatever your notification settings say.";
  const subject =
    change.kind === "passkey_registered"
      ? "Countersign: a passkey was added to your account"
      : "Countersign: a passkey was removed from your account";
  return {
    subject,
    text: [...paragraphs, `Your settings: ${account.settingsUrl}`, why].join("\n\n"),
    html: [
      ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
      `<p><a href="${escapeHtml(account.settingsUrl)}">Your settings</a></p>`,
      `<p>${escapeHtml(why)}</p>`,
    ].join("\n"),
  };
}

/**
 * Writes the notice into the outbox inside the change's transaction, so it
 * goes out once the change commits and never for a change rolled back.
 * Returns whether an email was queued (none when this server sends no email).
 */
export async function queuePasskeyNotice(
  tx: Sql,
  user: { id: string; email: string },
  change: PasskeyChange & { passkeyId: string },
): Promise<boolean> {
  if (emailChannel() === "off") return false;
  const m = composePasskeyNotice(change, { email: user.email, settingsUrl: `${env().appUrl}/settings` });
  // Due at once (the real clock, not the change's `at`, which tests may move).
  await queueMessage(tx, {
    // One notice per passkey and change: a passkey is added once and removed once.
    dedupeKey: `${change.kind}:${change.passkeyId}`,
    approvalId: null,
    userId: user.id,
    kind: change.kind,
    recipient: user.email,
    subject: m.subject,
    body: { channel: "email", text: m.text, html: m.html },
  });
  return true;
}
