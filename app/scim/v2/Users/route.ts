import { loggedRoute } from "@/lib/http/logged-route";
import { withScim } from "@/lib/auth/guards";
import { readScimBody, scimJson } from "@/lib/scim/scim-http";
import { listParams } from "@/lib/scim/scim-list";
import { attributeFilter } from "@/lib/scim/scim-setup";
import { createScimUser, listScimUsers } from "@/lib/scim/scim-users";

export const dynamic = "force-dynamic";

export const GET = loggedRoute(
  "scim.users",
  withScim(async (req) => {
    const params = new URL(req.url).searchParams;
    return scimJson(await listScimUsers(listParams(params), attributeFilter(params)));
  }),
);

export const POST = loggedRoute(
  "scim.users",
  withScim(async (req, actor) => {
    const user = await createScimUser(await readScimBody(req), actor);
    return scimJson(user, 201, { location: (user.meta as { location: string }).location });
  }),
);
