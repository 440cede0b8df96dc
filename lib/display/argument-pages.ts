// One page of a request's arguments, on demand (docs/security.md, bounded
// rendering): the children of the container at a path, from a position, or
// the rest of a long string or key; or the matches of a search
// (lib/display/argument-search); or the whole arguments as canonical JSON
// (RFC 8785) with hidden characters shown as escapes, for the raw view, which
// also records that the viewer saw the arguments in full (require_full_view). Only
// for a viewer who may see the request (lib/reviews/visibility); only the
// stored, redacted arguments; pages and search results have the same bounds
// as the first render, whatever the size of the arguments.
import "server-only";
import canonicalize from "canonicalize";
import { z } from "zod";
import { db } from "../db/client";
import { canSeeRequest } from "../reviews/visibility";
import { childrenPage, resolvePath, stringPage, type Json, type NodeView } from "./bounded-tree";
import { searchArguments, type SearchResult } from "./argument-search";
import { flagReason, reveal, type Segment } from "./reveal";
import { recordFullView } from "../reviews/review-views";

export const MAX_PATH_DEPTH = 10_000;

export const argumentsQuerySchema = z
  .object({
    // Child positions joined by dots ("" is the root): "3.0.12".
    path: z
      .string()
      .max(MAX_PATH_DEPTH * 8)
      .regex(/^(?:\d{1,7}(?:\.\d{1,7})*)?$/, "must be child positions joined by dots")
      .default("")
      .transform((p) => (p === "" ? [] : p.split(".").map(Number))),
    from: z.coerce.number().int().min(0).max(10_000_000).default(0),
    part: z.enum(["value", "key"]).default("value"),
    // Search (a substring, case-insensitive) or the canonical JSON instead of a page.
    q: z.string().trim().min(1).max(200).optional(),
    format: z.enum(["page", "canonical"]).default("page"),
  })
  .refine((q) => !(q.q !== undefined && q.format === "canonical"), { message: "search or canonical, not both", path: ["format"] });
export type ArgumentsQuery = z.infer<typeof argumentsQuerySchema>;

export type ArgumentsPage =
  | { kind: "children"; children: NodeView[]; next: number | null }
  | { kind: "text"; segments: Segment[]; next: number | null }
  | ({ kind: "search" } & SearchResult)
  /** `flag`: what the escapes and marks stand for, when there are any. */
  | { kind: "canonical"; segments: Segment[]; flag: string | null };

/** null when the request does not exist, the viewer may not see it, or nothing pageable is at the path. */
export async function argumentsPage(viewerId: string, approvalId: string, q: ArgumentsQuery, now = new Date()): Promise<ArgumentsPage | null> {
  if (!(await canSeeRequest(viewerId, approvalId))) return null;
  const row = await db().approval.findUnique({ where: { id: approvalId }, select: { redactedArgs: true } });
  if (!row) return null;
  const args = JSON.parse(row.redactedArgs) as Json;
  if (q.q !== undefined) return { kind: "search", ...searchArguments(args, q.q) };
  if (q.format === "canonical") {
    // The whole arguments, served to this viewer: a policy's require_full_view is met from now (docs/insights.md).
    await recordFullView({ approvalId, userId: viewerId, now });
    const r = reveal(canonicalize(args) ?? "null");
    return { kind: "canonical", segments: r.segments, flag: flagReason(r.findings) };
  }
  const target = resolvePath(args, q.path, q.part === "key");
  if (!target || target.kind === "other") return null;
  if (target.kind === "container") return { kind: "children", ...childrenPage(target.value, q.from) };
  return { kind: "text", ...stringPage(target.value, q.from) };
}
