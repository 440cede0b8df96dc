import { z } from "zod";
import { withService } from "@/lib/http/with-service";
import { json } from "@/lib/http/respond";
import { invalidRequest } from "@/lib/errors";
import { getApprovalState } from "@/lib/approvals/get-approval";

export const dynamic = "force-dynamic";

const querySchema = z.object({ wait: z.coerce.number().int().min(0).max(30).default(0) });

export const GET = withService<{ id: string }>(async (req, service, { id }) => {
  const query = querySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!query.success) throw invalidRequest(query.error);
  return json(await getApprovalState(service, id, query.data.wait, req.signal));
});
