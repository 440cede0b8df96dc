// Interaction payloads as Slack sends them: form-encoded `payload=<json>`,
// signed with the app's signing secret (`v0=` HMAC-SHA256 over
// `v0:{timestamp}:{body}`), the timestamp in seconds.
import { createHmac } from "node:crypto";

export function signedInteraction(secret: string, payload: unknown, opts: { timestamp?: number } = {}) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  return {
    body,
    headers: { "content-type": "application/x-www-form-urlencoded", "x-slack-request-timestamp": timestamp, "x-slack-signature": signature },
  };
}

/** A button press on a message, as Slack describes it (block_actions); `team` the workspace, T0TEST unless given. */
export function buttonPress(p: {
  user: string;
  actionId: string;
  value: string;
  channel: string;
  messageTs: string;
  triggerId?: string;
  team?: string;
  userTeam?: string;
}) {
  return {
    type: "block_actions",
    team: { id: p.team ?? "T0TEST", domain: "test" },
    user: { id: p.user, team_id: p.userTeam ?? p.team ?? "T0TEST", username: p.user.toLowerCase() },
    api_app_id: "A0TEST",
    trigger_id: p.triggerId ?? `${Date.now()}.${Math.floor(Math.random() * 1e6)}.abcdef`,
    container: { type: "message", message_ts: p.messageTs, channel_id: p.channel, is_ephemeral: false },
    channel: { id: p.channel, name: "approvals" },
    message: { type: "message", ts: p.messageTs },
    response_url: "https://hooks.slack.com/actions/T0TEST/1/abc",
    actions: [{ type: "button", action_id: p.actionId, block_id: "decide", value: p.value, action_ts: `${Date.now() / 1000}` }],
  };
}

/** The deny modal submitted with a reason (view_submission). */
export function denySubmission(p: { user: string; privateMetadata: string; reason: string; callbackId?: string; team?: string }) {
  return {
    type: "view_submission",
    team: { id: p.team ?? "T0TEST", domain: "test" },
    user: { id: p.user, team_id: p.team ?? "T0TEST" },
    api_app_id: "A0TEST",
    trigger_id: `${Date.now()}.1.abcdef`,
    view: {
      id: "V0TEST",
      type: "modal",
      callback_id: p.callbackId ?? "countersign_deny",
      private_metadata: p.privateMetadata,
      state: { values: { reason: { reason: { type: "plain_text_input", value: p.reason } } } },
    },
  };
}
