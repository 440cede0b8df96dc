import { loggedRoute } from "@/lib/http/logged-route";
import { withScim } from "@/lib/auth/guards";
import { readScimBody, scimJson } from "@/lib/scim/scim-http";
import { listParams } from "@/lib/scim/scim-list";
import { attributeFilter } from "@/lib/scim/scim-setup";
import { createScimGroup, listScimGroups } from "@/lib/scim/scim-groups";

export const dynamic = "force-dynamic";

export const GET = loggedRoute(
  "scim.groups",
  withScim(async (req) => {
    const params = new URL(req.url).searchParams;
    return scimJson(await listScimGroups(listParams(params), attributeFilter(params)));
  }),
);

export const POST = loggedRoute(
  "scim.groups",
  withScim(async (req, actor) => {
    const group = await createScimGroup(await readScimBody(req), actor);
    return scimJson(group, 201, { location: (group.meta as { location: string }).location });
  }),
);
