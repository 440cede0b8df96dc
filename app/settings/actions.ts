"use server";
// /settings: each action acts on the signed-in user's own data only (the id
// comes from the session, never from the form), through runAction: origin,
// live session, then zod-parsed input.
import { headers } from "next/headers";
import { assertSameOrigin, runAction, type ActionState, type ActionWording } from "@/lib/auth/guards";
import { signOut } from "@/lib/auth/nextauth";
import { updatePreferences } from "@/lib/notifications/preferences";
import { slackChannel } from "@/lib/slack/slack-client";
import { removePushSubscription, removePushSubscriptionByEndpoint, savePushSubscription } from "@/lib/notifications/push-subscriptions";
import { queueTestMessage } from "@/lib/notifications/test-message";
import { endAway, setAway } from "@/lib/users/away";
import { beginPasskeyAddition, passkeyRegistrationOptions, registerPasskey, removePasskey, renamePasskey } from "@/lib/passkeys/manage-passkeys";

const WORDING: ActionWording = {
  refused: "Refused.",
  signedOut: "Your session has ended: sign in again.",
  invalid: "Not saved: ",
  unavailable: "The database could not be reached. Reload the page in a moment to see whether the change was saved.",
  failed: "Something went wrong; nothing was changed. Try again.",
};
const SETTINGS = { name: "settings action", path: "/settings", wording: WORDING };

export async function savePreferencesAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    const p = await updatePreferences(user.id, {
      notifyEmail: fd.get("notifyEmail") ?? undefined,
      notifyPush: fd.get("notifyPush") ?? undefined,
      notifySlack: fd.get("notifySlack") ?? undefined,
    });
    const onOff = (v: boolean) => (v ? "on" : "off");
    // Without Slack on this server the choice is kept, not offered (the page disables it).
    const slack = slackChannel() === "on" ? onOff(p.notifySlack) : "not set up here";
    return { ok: true, message: `Saved: email ${onOff(p.notifyEmail)}, push ${onOff(p.notifyPush)}, Slack ${slack}.` };
  });
}

/** Away until a time: told nothing until then (the form's datetime-local value is read as UTC). */
export async function setAwayAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    const r = await setAway(user.id, String(fd.get("until") ?? ""));
    return {
      ok: true,
      message: `Away until ${r.awayUntil.toISOString().slice(0, 16).replace("T", " ")} UTC: you are told about nothing until then.`,
    };
  });
}

export async function endAwayAction(_prev: ActionState, _fd: FormData): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    const r = await endAway(user.id);
    return { ok: true, message: r.wasAway ? "Welcome back: you are told about requests again." : "You were not away." };
  });
}

/** Called by the browser part with PushSubscription.toJSON(); the user agent is the request's own. */
export async function subscribeBrowserAction(subscription: unknown): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    await savePushSubscription(user.id, subscription, (await headers()).get("user-agent"));
    return { ok: true, message: "Notifications are on in this browser." };
  });
}

export async function unsubscribeBrowserAction(endpoint: unknown): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    const removed = await removePushSubscriptionByEndpoint(user.id, endpoint);
    return { ok: true, message: removed ? "Notifications are off in this browser." : "This browser was not subscribed." };
  });
}

export async function removeSubscriptionAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    await removePushSubscription(user.id, fd.get("id"));
    return { ok: true, message: "Removed that browser." };
  });
}

/** The form carries no input: whom to send to is the session's user. */
export async function sendTestMessageAction(_prev: ActionState, _fd: FormData): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    const r = await queueTestMessage(user.id);
    if (r.ok)
      return {
        ok: true,
        message: `Test message queued on ${r.channels.join(" and ")} (${r.queued} message${r.queued === 1 ? "" : "s"}); it arrives within a few seconds.`,
      };
    if (r.reason === "rate-limited") return { ok: false, message: `Too many test messages: try again in ${Math.ceil(r.retryAfter / 60)} min.` };
    return { ok: false, message: "Nothing to send: turn on a channel above (and, for push, turn notifications on in a browser)." };
  });
}

// ---- passkeys (docs/passkeys.md) ----

/**
 * Step one of adding a passkey: with passkeys already, the request options
 * to confirm with one of them; with none, the creation options (only in the
 * first 5 minutes after signing in). lib/ enforces both.
 */
export async function passkeyOptionsAction(): Promise<(ActionState & { start?: unknown }) | { ok: false; message: string }> {
  return runAction("queue:view", SETTINGS, async (user) => {
    const start = await beginPasskeyAddition(user);
    return { ok: true, message: "", start };
  });
}

/** Step two, for a user with passkeys: the existing passkey's assertion, checked, then the creation options. */
export async function confirmPasskeyAction(proof: unknown): Promise<(ActionState & { options?: unknown }) | { ok: false; message: string }> {
  return runAction("queue:view", SETTINGS, async (user) => {
    const options = await passkeyRegistrationOptions(user, { proof });
    return { ok: true, message: "", options };
  });
}

/** Last step: the browser's answer, the name the reviewer gave it, and the confirming assertion (checked again, and used). */
export async function registerPasskeyAction(response: unknown, name: unknown, proof?: unknown): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    const p = await registerPasskey(user, { response, name, proof });
    return { ok: true, message: `Passkey "${p.name}" added.` };
  });
}

/** Too late for a first passkey: end this session and come back here after signing in. */
export async function signInAgainAction(): Promise<void> {
  await assertSameOrigin();
  await signOut({ redirectTo: "/signin?next=%2Fsettings" });
}

export async function renamePasskeyAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    await renamePasskey(user.id, { id: fd.get("id"), name: fd.get("name") });
    return { ok: true, message: "Renamed." };
  });
}

export async function removePasskeyAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("queue:view", SETTINGS, async (user) => {
    await removePasskey(user.id, fd.get("id"));
    return { ok: true, message: "Passkey removed." };
  });
}
