import { loggedRoute } from "@/lib/http/logged-route";
import { withScim } from "@/lib/auth/guards";
import { scimJson } from "@/lib/scim/scim-http";
import { schemas } from "@/lib/scim/scim-discovery";

export const dynamic = "force-dynamic";

export const GET = loggedRoute(
  "scim.schemas",
  withScim<{ id: string }>(async (_req, _actor, { id }) => scimJson(await schemas(id))),
);
