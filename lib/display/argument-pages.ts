// One page of a request's arguments, on demand (CONTRACT §19, bounded
// rendering): the children of the container at a path, from a position, or
// the rest of a long string or key. Only for a viewer who may see the request
// (lib/reviews/visibility); only the stored, redacted arguments; the same
// bounds as the first render, whatever the size of the arguments.
import "server-only";
import { z } from "zod";
import { db } from "../db/client";
import { canSeeRequest } from "../reviews/visibility";
import { childrenPage, resolvePath, stringPage, type Json, type NodeView } from "./bounded-tree";
import type { Segment } from "./reveal";

export const MAX_PATH_DEPTH = 10_000;

export const argumentsQuerySchema = z.object({
  // Child positions joined by dots ("" is the root): "3.0.12".
  path: z
    .string()
    .max(MAX_PATH_DEPTH * 8)
    .regex(/^(?:\d{1,7}(?:\.\d{1,7})*)?$/, "must be child positions joined by dots")
    .default("")
    .transform((p) => (p === "" ? [] : p.split(".").map(Number))),
  from: z.coerce.number().int().min(0).max(10_000_000).default(0),
  part: z.enum(["value", "key"]).default("value"),
});
export type ArgumentsQuery = z.infer<typeof argumentsQuerySchema>;

export type ArgumentsPage =
  { kind: "children"; children: NodeView[]; next: number | null } | { kind: "text"; segments: Segment[]; next: number | null };

/** null when the request does not exist, the viewer may not see it, or nothing pageable is at the path. */
export async function argumentsPage(viewerId: string, approvalId: string, q: ArgumentsQuery): Promise<ArgumentsPage | null> {
  if (!(await canSeeRequest(viewerId, approvalId))) return null;
  const row = await db().approval.findUnique({ where: { id: approvalId }, select: { redactedArgs: true } });
  if (!row) return null;
  const target = resolvePath(JSON.parse(row.redactedArgs) as Json, q.path, q.part === "key");
  if (!target || target.kind === "other") return null;
  if (target.kind === "container") return { kind: "children", ...childrenPage(target.value, q.from) };
  return { kind: "text", ...stringPage(target.value, q.from) };
}
