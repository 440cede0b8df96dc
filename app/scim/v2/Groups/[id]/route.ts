import { loggedRoute } from "@/lib/http/logged-route";
import { withScim } from "@/lib/auth/guards";
import { readScimBody, scimJson } from "@/lib/scim/scim-http";
import { attributeFilter } from "@/lib/scim/scim-setup";
import { deleteScimGroup, getScimGroup, patchScimGroup, replaceScimGroup } from "@/lib/scim/scim-groups";

export const dynamic = "force-dynamic";

type Params = { id: string };

export const GET = loggedRoute(
  "scim.group",
  withScim<Params>(async (req, _actor, { id }) => scimJson(await getScimGroup(id, attributeFilter(new URL(req.url).searchParams)))),
);

export const PUT = loggedRoute(
  "scim.group",
  withScim<Params>(async (req, actor, { id }) => scimJson(await replaceScimGroup(id, await readScimBody(req), actor))),
);

export const PATCH = loggedRoute(
  "scim.group",
  withScim<Params>(async (req, actor, { id }) => scimJson(await patchScimGroup(id, await readScimBody(req), actor))),
);

export const DELETE = loggedRoute(
  "scim.group",
  withScim<Params>(async (_req, actor, { id }) => {
    await deleteScimGroup(id, actor);
    return scimJson(null, 204);
  }),
);
