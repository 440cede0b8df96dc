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

/** Where a revision differs from the proposal: the tool, and pointers into the arguments (no values). */
export type RevisionDifferences = { tool?: true; paths: string[] };

export type RevisionCheck = {
  revisesId: string;
  match: boolean;
  differs: RevisionDifferences | null;
  /** The proposer, whose approval counts toward the revision when it matches. */
  proposerId: string;
  reason: string;
};

const notRevisable = () =>
  new AppError("invalid-request", "data.revises must be the id of a request of this service that a reviewer answered with changes", {
    issues: [{ path: "data.revises", message: "must be the id of a request of this service that a reviewer answered with changes" }],
  });

export async function checkRevision(
  client: Db | Tx,
  serviceId: string,
  revisesId: string,
  revision: { tool: string; view: unknown; hidden: readonly HiddenEntry[] },
): Promise<RevisionCheck> {
  const original = await client.approval.findFirst({
    where: { id: revisesId, serviceId },
    select: { status: true, tool: true, redactedArgs: true, redactedDigests: true, patch: true, patchReason: true, proposedById: true },
  });
  const hidden = parseHidden(original?.redactedDigests ?? null);
  if (!original || original.status !== "revised" || !original.patch || !original.proposedById || !hidden) throw notRevisable();
  const patch = JSON.parse(original.patch) as JsonPatch;
  const expected = expectedSealedView(JSON.parse(original.redactedArgs), hidden, patch);
  const actual = sealView(revision.view, revision.hidden);
  const sameArgs = sameSealedView(expected, actual);
  const sameTool = original.tool === revision.tool;
  const match = sameArgs && sameTool;
  return {
    revisesId,
    match,
    differs: match ? null : { ...(sameTool ? {} : { tool: true as const }), paths: sameArgs ? [] : sealedDifferences(expected, actual) },
    proposerId: original.proposedById,
    reason: original.patchReason ?? "",
  };
}
