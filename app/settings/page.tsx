import type { Metadata } from "next";
import { requireUserPage } from "@/lib/auth/guards";
import { getPreferences } from "@/lib/notifications/preferences";
import { listPushSubscriptions } from "@/lib/notifications/push-subscriptions";
import { emailChannel } from "@/lib/notifications/mailer";
import { vapidPublicKey } from "@/lib/notifications/web-push";
import { slackChannel } from "@/lib/slack/slack-client";
import { LocalTime } from "@/components/time";
import { ActionForm } from "../admin/_components/action-form";
import { AdminPage, Section, TextField } from "../admin/_components/admin-page";
import {
  confirmPasskeyAction,
  passkeyOptionsAction,
  registerPasskeyAction,
  removePasskeyAction,
  removeSubscriptionAction,
  renamePasskeyAction,
  endAwayAction,
  savePreferencesAction,
  sendTestMessageAction,
  setAwayAction,
  signInAgainAction,
  subscribeBrowserAction,
  unsubscribeBrowserAction,
} from "./actions";
import { PasskeyRegister } from "./passkey-register";
import { firstPasskeyWindow, listOwnPasskeys } from "@/lib/passkeys/manage-passkeys";
import { SIGN_IN_AGAIN } from "@/lib/passkeys/addition-rule";
import { PushBrowser } from "./push-browser";
import { awayUntil } from "@/lib/users/away";

export const metadata: Metadata = { title: "Settings" };
export const dynamic = "force-dynamic";

const EMAIL_WORDS = {
  smtp: "Email is sent through this server's mail server.",
  local: "This server keeps email in its local mailbox (an admin sees it at /admin/outbox); it is not delivered.",
  off: "This server sends no email (no mail server is set up).",
} as const;

export default async function SettingsPage() {
  const user = await requireUserPage();
  const [prefs, browsers, passkeys, away] = await Promise.all([
    getPreferences(user.id),
    listPushSubscriptions(user.id),
    listOwnPasskeys(user.id),
    awayUntil(user.id),
  ]);
  // With no passkey yet, a first one may be added only early in a session (docs/passkeys.md).
  const firstUntil = passkeys.length === 0 ? await firstPasskeyWindow(user) : null;
  const canAdd = passkeys.length > 0 || firstUntil !== null;
  const key = vapidPublicKey();
  const checkbox = "h-5 w-5 rounded border-slate-300";

  return (
    <AdminPage user={user} title="Settings">
      <Section title="How you are told" id="channels-h">
        <p className="mb-3 text-sm text-slate-600">When a request needs your review, a reminder is due or a request is escalated to you.</p>
        <ActionForm action={savePreferencesAction} submitLabel="Save channels" keepValues>
          <fieldset className="flex w-full flex-col gap-3">
            <legend className="sr-only">Channels</legend>
            <label className="flex items-start gap-3 text-sm">
              <input type="checkbox" name="notifyEmail" defaultChecked={prefs.notifyEmail} className={checkbox} />
              <span>
                <span className="font-medium">Email</span> to {user.email}
                <span className="block text-slate-600">{EMAIL_WORDS[emailChannel()]}</span>
              </span>
            </label>
            <label className="flex items-start gap-3 text-sm">
              <input type="checkbox" name="notifyPush" defaultChecked={prefs.notifyPush} className={checkbox} />
              <span>
                <span className="font-medium">Push notifications</span> in the browsers listed below
                <span className="block text-slate-600">
                  {key ? "Turn them on in each browser you want told." : "Web Push is not set up on this server (no VAPID keys)."}
                </span>
              </span>
            </label>
            <label className="flex items-start gap-3 text-sm">
              {slackChannel() === "on" ? (
                <input type="checkbox" name="notifySlack" defaultChecked={prefs.notifySlack} className={checkbox} aria-describedby="slack-note" />
              ) : (
                // Nothing can go to Slack here: shown off and not changeable; the stored choice is kept for when Slack is set up.
                <>
                  <input type="checkbox" disabled checked={false} readOnly className={checkbox} aria-describedby="slack-note" />
                  {prefs.notifySlack && <input type="hidden" name="notifySlack" value="on" />}
                </>
              )}
              <span>
                <span className="font-medium">Slack direct messages</span> from the Countersign app, to the Slack user with your email
                <span id="slack-note" className="block text-slate-600">
                  {slackChannel() === "on"
                    ? prefs.slackLinked
                      ? "Your Slack account is linked: you can approve and deny from Slack."
                      : "Your Slack account links itself the first time you press a button in a Countersign message."
                    : "Not available: Slack is not set up on this server (an admin sets SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET)."}
                </span>
              </span>
            </label>
          </fieldset>
        </ActionForm>
      </Section>

      <Section title="Away" id="away-h">
        <p className="mb-3 text-sm text-slate-600" data-testid="away-state">
          {away ? (
            <>
              You are away until <LocalTime at={away.toISOString()} />: you are told about nothing, and a request only you could complete is flagged
              to the admins. You can still open and decide requests.
            </>
          ) : (
            "You are not away. Going away stops every notification and reminder to you until the time you give; your roles stay as they are."
          )}
        </p>
        <ActionForm action={setAwayAction} submitLabel={away ? "Change the time" : "Go away"}>
          <TextField label="Away until (UTC)" name="until" type="datetime-local" required className="w-full sm:w-56" />
        </ActionForm>
        {away && <ActionForm action={endAwayAction} submitLabel="I'm back" />}
      </Section>

      <Section title="This browser" id="this-browser-h">
        <PushBrowser vapidPublicKey={key} subscribe={subscribeBrowserAction} unsubscribe={unsubscribeBrowserAction} />
      </Section>

      <Section title={`Your browsers (${browsers.length})`} id="browsers-h">
        {browsers.length === 0 ? (
          <p className="text-sm text-slate-600">No browser has notifications turned on.</p>
        ) : (
          <ul className="flex flex-col gap-3" aria-label="Subscribed browsers">
            {browsers.map((b) => (
              <li key={b.id} className="flex flex-col gap-2 rounded border border-slate-200 p-3" data-testid="push-browser">
                <p className="break-words text-sm">{b.userAgent ?? "Unknown browser"}</p>
                <p className="text-xs text-slate-600">
                  Since <LocalTime at={b.createdAt.toISOString()} />
                  {b.lastUsedAt && (
                    <>
                      {" "}
                      · last message <LocalTime at={b.lastUsedAt.toISOString()} />
                    </>
                  )}
                </p>
                <ActionForm action={removeSubscriptionAction} submitLabel="Remove" submitName="Remove this browser">
                  <input type="hidden" name="id" value={b.id} />
                </ActionForm>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title={`Passkeys (${passkeys.length})`} id="passkeys-h">
        <p className="mb-3 text-sm text-slate-600">
          Some policies accept a vote only when it is signed with your passkey. Add one here, in each browser or device you review from.
        </p>
        {passkeys.length > 0 && (
          <ul className="mb-4 flex flex-col gap-3" aria-label="Your passkeys">
            {passkeys.map((p) => (
              <li key={p.id} className="flex flex-col gap-2 rounded border border-slate-200 p-3" data-testid="passkey">
                <p className="break-words text-sm font-medium">{p.name}</p>
                <p className="text-xs text-slate-600">
                  Added <LocalTime at={p.createdAt.toISOString()} />
                  {p.lastUsedAt && (
                    <>
                      {" "}
                      · last vote <LocalTime at={p.lastUsedAt.toISOString()} />
                    </>
                  )}
                </p>
                <ActionForm action={renamePasskeyAction} submitLabel="Rename" submitName={`Rename ${p.name}`}>
                  <input type="hidden" name="id" value={p.id} />
                  <label className="flex flex-col gap-1 text-sm">
                    New name
                    <input
                      name="name"
                      defaultValue={p.name}
                      maxLength={100}
                      required
                      className="rounded border border-slate-300 px-3 py-2 text-base"
                    />
                  </label>
                </ActionForm>
                <ActionForm action={removePasskeyAction} submitLabel="Remove" submitName={`Remove ${p.name}`}>
                  <input type="hidden" name="id" value={p.id} />
                </ActionForm>
              </li>
            ))}
          </ul>
        )}
        {/* One place for the form, whichever rule applies, so its status line survives the refresh after the first passkey. */}
        <p className={`mb-3 text-sm ${canAdd ? "text-slate-600" : "font-medium text-slate-800"}`} data-testid="passkey-rule">
          {passkeys.length > 0 ? (
            <>
              To add another, you first confirm with one of these passkeys (on this device, your phone or a security key), then make the new one: a
              signed-in session alone, such as a stolen session cookie, cannot add a passkey.
            </>
          ) : firstUntil ? (
            <>
              You can add your first passkey until <LocalTime at={firstUntil.toISOString()} />, 5 minutes after you signed in; later, sign in again to
              add it. Every further passkey is confirmed with one you have.
            </>
          ) : (
            SIGN_IN_AGAIN
          )}{" "}
          {canAdd && emailChannel() !== "off" && "You get an email whenever a passkey is added or removed."}
        </p>
        {canAdd ? (
          <PasskeyRegister
            confirmFirst={passkeys.length > 0}
            options={passkeyOptionsAction}
            confirm={confirmPasskeyAction}
            register={registerPasskeyAction}
          />
        ) : (
          <form action={signInAgainAction}>
            <button type="submit" className="h-11 rounded bg-slate-800 px-4 font-medium text-white hover:bg-slate-900">
              Sign in again
            </button>
          </form>
        )}
      </Section>

      <Section title="Test" id="test-h">
        <p className="mb-3 text-sm text-slate-600">One message on each channel you chose, through the same path as real notifications.</p>
        <ActionForm action={sendTestMessageAction} submitLabel="Send a test message" />
      </Section>
    </AdminPage>
  );
}
