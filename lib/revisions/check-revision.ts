// Does a revision carry exactly the changes that were proposed
// (docs/revisions.md)? Its sealed view (shown values as they are, hidden
// ones as keyed digests) must equal the original's with the patch applied,
// and its tool the original's. Only a revised request of the same service
// can be revised; anything else is refused as if it did not exist.
import "server-only";
import type { JsonPatch } from "@countersign/client";
import type { Db, Tx } from "../db/client";
import { AppError } from "../errors";
import { parseHidden, type HiddenEntry } from "./hidden-values";
import { expectedSealedView, sameSealedView, sealView, sealedDifferences } from "./sealed-view";

/**
 * Where a revision differs from the proposal: the tool, what it must keep of
 * the call (environment, effects, requested_by), and pointers into the
 * arguments (no values).
 */
export type RevisionDifferences = { tool?: true; call?: Array<(typeof KEPT)[keyof typeof KEPT]>; paths: string[] };

export type RevisionCheck = {
  revisesId: string;
  match: boolean;
  /** The proposer's approval counts toward the revision: it matches, and the original has not expired. */
  carries: boolean;
  differs: RevisionDifferences | null;
  /** The proposer, whose approval counts toward the revision when it matches. */
  proposerId: string;
  reason: string;
};

const notRevisable = () =>
  new AppError("invalid-request", "data.revises must be the id of a request of this service that a reviewer answered with changes", {
    issues: [{ path: "data.revises", message: "must be the id of a request of this service that a reviewer answered with changes" }],
  });

/** What a revision must keep of its original: the same call, for the same person, in the same place. */
const KEPT = { effects: "effects", environment: "environment", requestedBy: "requested_by" } as const;

export async function checkRevision(
  client: Db | Tx,
  serviceId: string,
  revisesId: string,
  revision: {
    tool: string;
    view: unknown;
    hidden: readonly HiddenEntry[];
    effects: string;
    environment: string | null;
    requestedBy: string | null;
    now: Date;
  },
): Promise<RevisionCheck> {
  const original = await client.approval.findFirst({
    where: { id: revisesId, serviceId },
    select: {
      status: true,
      tool: true,
      redactedArgs: true,
      redactedDigests: true,
      patch: true,
      patchReason: true,
      proposedById: true,
      effects: true,
      environment: true,
      requestedBy: true,
      expiresAt: true,
    },
  });
  const hidden = parseHidden(original?.redactedDigests ?? null);
  if (!original || original.status !== "revised" || !original.patch || !original.proposedById || !hidden) throw notRevisable();
  // A proposal approved changes to one call: another environment, effects or requester makes it another call.
  const call = (Object.keys(KEPT) as Array<keyof typeof KEPT>).filter((k) => original[k] !== revision[k]).map((k) => KEPT[k]);
  const patch = JSON.parse(original.patch) as JsonPatch;
  const expected = expectedSealedView(JSON.parse(original.redactedArgs), hidden, patch);
  const actual = sealView(revision.view, revision.hidden);
  const sameArgs = sameSealedView(expected, actual);
  const sameTool = original.tool === revision.tool;
  const match = sameArgs && sameTool && call.length === 0;
  return {
    revisesId,
    match,
    // The proposer's approval was given for the original's lifetime, not beyond it.
    carries: match && original.expiresAt.getTime() > revision.now.getTime(),
    differs: match
      ? null
      : {
          ...(sameTool ? {} : { tool: true as const }),
          ...(call.length ? { call } : {}),
          paths: sameArgs ? [] : sealedDifferences(expected, actual),
        },
    proposerId: original.proposedById,
    reason: original.patchReason ?? "",
  };
}
