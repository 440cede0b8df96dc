import { loggedRoute } from "@/lib/http/logged-route";
import { withService } from "@/lib/auth/guards";
import { json } from "@/lib/http/respond";
import { cancelApproval } from "@/lib/approvals/cancel-approval";

export const dynamic = "force-dynamic";

export const POST = loggedRoute(
  "approval.cancel",
  withService<{ id: string }>(async (_req, service, { id }) => json(await cancelApproval(service, id))),
);
