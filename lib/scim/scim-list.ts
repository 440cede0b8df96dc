// Listing (RFC 7644 §3.4.2): filter, then 1-based startIndex and count.
import "server-only";
import SCIMMY from "scimmy";
import { scimError } from "./scim-error";
import { MAX_RESULTS } from "./scim-setup";

export type ListParams = { filter: string | null; startIndex: number; count: number };

function integer(text: string | null, name: string): number | null {
  if (text === null || text.trim() === "") return null;
  if (!/^-?\d{1,9}$/.test(text.trim())) throw scimError(400, "invalidValue", `${name} must be a whole number`);
  return Number(text);
}

/** The list parameters of a query string: startIndex below 1 counts as 1, count is capped at MAX_RESULTS. */
export function listParams(params: URLSearchParams): ListParams {
  const startIndex = Math.max(integer(params.get("startIndex"), "startIndex") ?? 1, 1);
  const count = Math.min(Math.max(integer(params.get("count"), "count") ?? MAX_RESULTS, 0), MAX_RESULTS);
  const filter = params.get("filter");
  return { filter: filter === null || filter.trim() === "" ? null : filter, startIndex, count };
}

/** A ListResponse of one page: `page` is already the page, `total` all that matched. */
export function listResponse(page: Record<string, unknown>[], total: number, p: ListParams): Record<string, unknown> {
  return {
    schemas: [SCIMMY.Messages.ListResponse.id],
    totalResults: total,
    startIndex: p.startIndex,
    itemsPerPage: page.length,
    Resources: page,
  };
}
