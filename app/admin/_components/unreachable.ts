// A refusal of a change nobody could satisfy (lib/policies/reachability.ts)
// as a form's answer: why, and the page's own way round it (its "anyway"
// checkbox), never the command line's flag.
import type { ActionState } from "@/lib/auth/guards";
import { UnreachableError } from "@/lib/policies/reachability";

export function refusedAsUnreachable(e: unknown, checkbox: string): NonNullable<ActionState> {
  if (!(e instanceof UnreachableError)) throw e;
  return {
    ok: false,
    message: e.summary,
    detail: [...e.problems.map((p) => p.message), `If you are preparing roles in advance, tick “${checkbox}” and submit again.`],
  };
}
