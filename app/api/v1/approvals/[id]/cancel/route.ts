import { withService } from "@/lib/http/with-service";
import { json } from "@/lib/http/respond";
import { cancelApproval } from "@/lib/approvals/cancel-approval";

export const dynamic = "force-dynamic";

export const POST = withService<{ id: string }>(async (_req, service, { id }) => json(await cancelApproval(service, id)));
