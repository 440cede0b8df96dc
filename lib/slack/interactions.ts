// What a click in Slack does, after the route has checked Slack's signature
// (lib/slack/verify-request.ts). Every vote goes through recordReview, the
// one place the review rules live: the requester, a user without the role,
// a request decided or expired meanwhile, a disabled account are refused
// there as in the browser. A refusal is a private message to the person
// who clicked (or an error in the Deny dialog) and records nothing.
//
// Two checks are Slack's own and come first. A click must come from the
// workspace Countersign is set up for (SLACK_TEAM_ID), on every interaction,
// from a linked user too. And Approve is accepted only for a request the
// message could show whole and plainly (slackApprovalRefusal, the rule that
// left the button out of the message): an old message or a crafted payload
// may still carry the button.
import "server-only";
import { z } from "zod";
import { db } from "../db/client";
import { env } from "../env";
import { AppError } from "../errors";
import { errorFields, log } from "../log";
import { recordReview } from "../reviews/record-review";
import { digestVisibleTo, loadViewer, visibleTo } from "../reviews/visibility";
import { ACTION, DENY_MODAL, denyModal, slackApprovalRefusal } from "./blocks";
import { slack } from "./slack-client";
import { slackActor } from "./slack-identity";

const slackId = z.string().regex(/^[A-Z0-9]{2,40}$/);
const approvalId = z.string().regex(/^apr_[a-z0-9]{1,60}$/);

// Slack names the workspace of every interaction, and the clicking user's own.
const team = z.object({ id: slackId });
const user = z.object({ id: slackId, team_id: slackId.optional() });

const blockActions = z.object({
  type: z.literal("block_actions"),
  team,
  user,
  trigger_id: z.string().max(200).optional(),
  channel: z.object({ id: slackId }).optional(),
  container: z.object({ channel_id: slackId.optional() }).optional(),
  actions: z.array(z.object({ action_id: z.string().max(255), value: z.string().max(2000).optional() })).min(1),
});

const viewSubmission = z.object({
  type: z.literal("view_submission"),
  team,
  user,
  view: z.object({
    callback_id: z.string().max(255),
    private_metadata: z.string().max(3000),
    state: z.object({ values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullable().optional() }))) }),
  }),
});

/** Other kinds (a closed dialog, a shortcut) need no answer but 200. */
const otherKind = z.object({ type: z.string().max(100) });

const OTHER_WORKSPACE = "This Slack workspace is not the one Countersign is set up for, so nothing from it is recorded.";

/** From the configured workspace, by the payload's team and the user's own (fail closed without SLACK_TEAM_ID). */
function fromOurWorkspace(p: { team: { id: string }; user: { team_id?: string } }): boolean {
  const ours = env().SLACK_TEAM_ID;
  return ours !== undefined && p.team.id === ours && (p.user.team_id === undefined || p.user.team_id === ours);
}

export type InteractionAnswer = { status: 200; body?: Record<string, unknown> } | { status: 400; error: string };

export async function handleInteraction(raw: unknown): Promise<InteractionAnswer> {
  const actions = blockActions.safeParse(raw);
  if (actions.success) return onButton(actions.data);
  const submission = viewSubmission.safeParse(raw);
  if (submission.success) return onDenySubmitted(submission.data);
  const other = otherKind.safeParse(raw);
  if (other.success && other.data.type !== "block_actions" && other.data.type !== "view_submission") return { status: 200 };
  return { status: 400, error: "not an interaction payload Countersign understands" };
}

async function onButton(p: z.infer<typeof blockActions>): Promise<InteractionAnswer> {
  const action = p.actions[0]!;
  const channel = p.channel?.id ?? p.container?.channel_id;
  const tell = (text: string) => privately(channel, p.user.id, text);
  if (action.action_id === ACTION.open) return { status: 200 }; // a link: Slack opened it
  const id = approvalId.safeParse(action.value);
  if (!id.success || !Object.values(ACTION).includes(action.action_id as never)) {
    return { status: 400, error: "unknown action" };
  }
  if (!fromOurWorkspace(p)) {
    await tell(OTHER_WORKSPACE);
    return { status: 200 };
  }
  const actor = await slackActor(p.user.id);
  if (!actor.ok) {
    await tell(actor.why);
    return { status: 200 };
  }
  if (action.action_id === ACTION.digest) {
    // The page's own rule: who may see the request, and who its digest.
    const [viewer, a] = await Promise.all([
      loadViewer(actor.userId),
      db().approval.findUnique({
        where: { id: id.data },
        select: { argsDigest: true, argsSalt: true, redactedArgs: true, requiredRoles: true, requestedBy: true, requesterKey: true },
      }),
    ]);
    if (!a || !visibleTo(viewer, a)) await tell("That request does not exist, or you may not see it.");
    else if (!digestVisibleTo(viewer, a)) await tell("Only the request's reviewers may see its digest.");
    else await tell(`Argument digest of this request:\n\`${a.argsDigest}\``);
    return { status: 200 };
  }
  if (action.action_id === ACTION.deny) {
    const [viewer, a] = await Promise.all([
      loadViewer(actor.userId),
      db().approval.findUnique({ where: { id: id.data }, select: { tool: true, requiredRoles: true, requestedBy: true, requesterKey: true } }),
    ]);
    // The dialog names the tool: only for someone who may see the request (the vote itself is checked on submit).
    if (!a || !visibleTo(viewer, a) || !p.trigger_id) {
      await tell("That request does not exist, or you may not see it.");
      return { status: 200 };
    }
    try {
      await slack().views.open({
        trigger_id: p.trigger_id,
        view: denyModal({ approvalId: id.data, tool: a.tool }, JSON.stringify({ approvalId: id.data, channel })) as never,
      });
    } catch (e) {
      log.warn("slack: the deny dialog did not open", errorFields(e));
      await tell("The Deny dialog could not be opened. Try again, or deny on the request page.");
    }
    return { status: 200 };
  }
  const notHere = await approveRefusal(id.data, actor.userId);
  if (notHere) {
    await tell(notHere);
    return { status: 200 };
  }
  try {
    const r = await recordReview(actor.userId, { approvalId: id.data, decision: "approve" }, "slack");
    await tell(
      r.status === "approved"
        ? "Approved: your approval completed the request."
        : `Your approval is recorded (${r.approvals} of ${r.quorum}); the request waits for ${r.quorum - r.approvals} more.`,
    );
  } catch (e) {
    await tell(refusalText(e));
  }
  return { status: 200 };
}

/**
 * Why Approve from Slack is refused for this request (lib/slack/blocks.ts),
 * or null. Someone who may not see the request learns nothing here: the
 * vote's own refusal answers them.
 */
async function approveRefusal(approvalId: string, userId: string): Promise<string | null> {
  const [viewer, a] = await Promise.all([
    loadViewer(userId),
    db().approval.findUnique({
      where: { id: approvalId },
      select: {
        tool: true,
        environment: true,
        runId: true,
        callId: true,
        requestedBy: true,
        summary: true,
        redactedArgs: true,
        requiredRoles: true,
        requesterKey: true,
        service: { select: { slug: true } },
      },
    }),
  ]);
  if (!a || !visibleTo(viewer, a)) return null;
  const why = slackApprovalRefusal({ ...a, service: a.service.slug });
  if (!why) return null;
  return `Not recorded: Approve is not offered in Slack for this request, because ${why}. Review it on its page and vote there: <${env().appUrl}/approvals/${approvalId}|open the request>.`;
}

const denyMetadata = z.object({ approvalId, channel: slackId.optional() });

async function onDenySubmitted(p: z.infer<typeof viewSubmission>): Promise<InteractionAnswer> {
  if (p.view.callback_id !== DENY_MODAL) return { status: 200 };
  let meta;
  try {
    meta = denyMetadata.parse(JSON.parse(p.view.private_metadata));
  } catch {
    return { status: 400, error: "the dialog's data is not Countersign's" };
  }
  const reason = p.view.state.values.reason?.reason?.value?.trim() ?? "";
  const refuse = (text: string): InteractionAnswer => ({ status: 200, body: { response_action: "errors", errors: { reason: text } } });
  if (!reason) return refuse("A denial needs a reason.");
  if (!fromOurWorkspace(p)) return refuse(OTHER_WORKSPACE);
  const actor = await slackActor(p.user.id);
  if (!actor.ok) return refuse(actor.why);
  try {
    await recordReview(actor.userId, { approvalId: meta.approvalId, decision: "deny", reason }, "slack");
  } catch (e) {
    return refuse(refusalText(e));
  }
  await privately(meta.channel, p.user.id, "Denied: your denial decided the request.");
  return { status: 200 };
}

/** What a refused vote tells the person; the review's own words where it has them. */
function refusalText(e: unknown): string {
  if (e instanceof AppError) {
    if (e.code === "not-found") return "That request does not exist, or you may not see it.";
    const why = e.message === e.code ? e.code.replace(/-/g, " ") : e.message;
    return `Not recorded: ${why}.`;
  }
  log.error("slack vote failed", errorFields(e));
  return "Not recorded: something went wrong. Try again, or decide on the request page.";
}

/** A message only the clicking person sees. Best effort: the click's outcome does not depend on it. */
async function privately(channel: string | undefined, user: string, text: string): Promise<void> {
  if (!channel) return;
  try {
    await slack().chat.postEphemeral({ channel, user, text });
  } catch (e) {
    log.warn("slack: private reply failed", errorFields(e));
  }
}
