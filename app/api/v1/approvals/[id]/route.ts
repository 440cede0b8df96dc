import { z } from "zod";
import { loggedRoute } from "@/lib/http/logged-route";
import { withService } from "@/lib/auth/guards";
import { json } from "@/lib/http/respond";
import { invalidRequest } from "@/lib/errors";
import { getApprovalState } from "@/lib/approvals/get-approval";
import { abortOnShutdown } from "@/lib/shutdown";

export const dynamic = "force-dynamic";

const querySchema = z.object({ wait: z.coerce.number().int().min(0).max(30).default(0) });

export const GET = loggedRoute(
  "approval",
  withService<{ id: string }>(async (req, service, { id }) => {
    const query = querySchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!query.success) throw invalidRequest(query.error);
    // A long-poll ends early, with the current state, when the client leaves or this instance stops.
    const waiting = abortOnShutdown(req.signal);
    try {
      return json(await getApprovalState(service, id, query.data.wait, waiting.signal));
    } finally {
      waiting.release();
    }
  }),
);
