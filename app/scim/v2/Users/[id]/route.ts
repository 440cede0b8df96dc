import { loggedRoute } from "@/lib/http/logged-route";
import { withScim } from "@/lib/auth/guards";
import { readScimBody, scimJson } from "@/lib/scim/scim-http";
import { attributeFilter } from "@/lib/scim/scim-setup";
import { deleteScimUser, getScimUser, patchScimUser, replaceScimUser } from "@/lib/scim/scim-users";

export const dynamic = "force-dynamic";

type Params = { id: string };

export const GET = loggedRoute(
  "scim.user",
  withScim<Params>(async (req, _actor, { id }) => scimJson(await getScimUser(id, attributeFilter(new URL(req.url).searchParams)))),
);

export const PUT = loggedRoute(
  "scim.user",
  withScim<Params>(async (req, actor, { id }) => scimJson(await replaceScimUser(id, await readScimBody(req), actor))),
);

export const PATCH = loggedRoute(
  "scim.user",
  withScim<Params>(async (req, actor, { id }) => scimJson(await patchScimUser(id, await readScimBody(req), actor))),
);

export const DELETE = loggedRoute(
  "scim.user",
  withScim<Params>(async (_req, actor, { id }) => {
    await deleteScimUser(id, actor);
    return scimJson(null, 204);
  }),
);
