"use server";
// Approve or revoke a standing approval. Thin: runAction's checks, then
// lib/standing, which holds every rule.
import { runAction, type ActionState, type ActionWording } from "@/lib/auth/guards";
import { approveStanding, revokeStanding } from "@/lib/standing/standing-approvals";

const WORDING: ActionWording = {
  refused: "Refused.",
  unavailable: "The database could not be reached. Reload the page in a moment to see whether it was recorded.",
  failed: "Something went wrong; nothing was recorded. Try again.",
};

const idOf = (fd: FormData) => String(fd.get("id") ?? "");

export async function approveStandingAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("queue:view", { name: "standing-approve", path: "/standing", wording: WORDING }, async (user) => {
    const r = await approveStanding(user.id, idOf(fd));
    return { ok: true, message: r.status === "active" ? "Approved: it is now active." : `Approved: ${r.approvals} of ${r.quorum}.` };
  });
}

export async function revokeStandingAction(_prev: ActionState, fd: FormData): Promise<ActionState> {
  return runAction("queue:view", { name: "standing-revoke", path: "/standing", wording: WORDING }, async (user) => {
    await revokeStanding({ userId: user.id }, idOf(fd));
    return { ok: true, message: "Revoked: the next matching request waits for reviewers." };
  });
}
