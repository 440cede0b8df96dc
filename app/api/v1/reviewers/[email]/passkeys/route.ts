// GET /api/v1/reviewers/{email}/passkeys (docs/api.md): the reviewer's
// passkeys, for executors that check receipt assertions offline. An admin's
// session or any service's API token.
import { withServiceOrSession } from "@/lib/auth/guards";
import { json } from "@/lib/http/respond";
import { loggedRoute } from "@/lib/http/logged-route";
import { reviewerPasskeys } from "@/lib/passkeys/manage-passkeys";

export const dynamic = "force-dynamic";

export const GET = loggedRoute(
  "reviewers.passkeys",
  withServiceOrSession<{ email: string }>("admin:users", async (_req, _who, params) => {
    let email: string;
    try {
      email = decodeURIComponent(params.email);
    } catch {
      email = "";
    }
    return json(await reviewerPasskeys({ email }));
  }),
);
