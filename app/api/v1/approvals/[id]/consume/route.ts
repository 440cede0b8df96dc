import { loggedRoute } from "@/lib/http/logged-route";
import { withService } from "@/lib/auth/guards";
import { json, readJson } from "@/lib/http/respond";
import { invalidRequest } from "@/lib/errors";
import { consumeRequestSchema } from "@/lib/approvals/schemas";
import { consumeApproval } from "@/lib/approvals/consume-approval";

export const dynamic = "force-dynamic";

export const POST = loggedRoute(
  "approval.consume",
  withService<{ id: string }>(async (req, service, { id }) => {
    const binding = consumeRequestSchema.safeParse(await readJson(req));
    if (!binding.success) throw invalidRequest(binding.error);
    return json(await consumeApproval(service, id, binding.data));
  }),
);
