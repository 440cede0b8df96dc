/**
 * The tool result an MCP client gets when a call was not approved: an error
 * result (isError) that says why in words a model can act on, plus the
 * verdict code and approval id in _meta for programs. The port's reason
 * never quotes argument values, so neither does this.
 */
import type { PortDecision } from "@countersign/client";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export function refusalResult(tool: string, verdict: PortDecision): CallToolResult {
  const reason = verdict.reason.trim().replace(/\.$/, "");
  const why =
    verdict.code === "denied"
      ? `Countersign denied this call: ${reason.replace(/^denied:\s*/, "")}.`
      : `Countersign did not approve this call (${verdict.code}): ${reason}.`;
  return {
    isError: true,
    content: [{ type: "text", text: `${why} The tool "${tool}" was not run.` }],
    _meta: { "countersign/verdict": { code: verdict.code, approval_id: verdict.approvalId ?? null } },
  };
}
