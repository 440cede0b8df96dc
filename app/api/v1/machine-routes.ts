// The routes agent services call (docs/api.md), served by the custom server
// without Next.js's per-request machinery once instrumentation.ts publishes
// this table (lib/http/lean-routes.ts). Each row is the route file's own
// export: one handler per route, whichever way a request reaches it.
import { machineRoute, type MachineRoute } from "@/lib/http/lean-routes";
import { POST as webhook } from "./webhooks/[slug]/route";
import { GET as state } from "./approvals/[id]/route";
import { POST as consume } from "./approvals/[id]/consume/route";
import { POST as result } from "./approvals/[id]/result/route";
import { POST as cancel } from "./approvals/[id]/cancel/route";

export const MACHINE_ROUTES: readonly MachineRoute[] = [
  machineRoute("POST", "/api/v1/webhooks/[slug]", webhook),
  machineRoute("GET", "/api/v1/approvals/[id]", state),
  machineRoute("POST", "/api/v1/approvals/[id]/consume", consume),
  machineRoute("POST", "/api/v1/approvals/[id]/result", result),
  machineRoute("POST", "/api/v1/approvals/[id]/cancel", cancel),
];
