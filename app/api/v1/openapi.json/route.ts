import { env } from "@/lib/env";
import { json } from "@/lib/http/respond";
import { buildOpenApi } from "@/lib/openapi/build-openapi";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

function openApiDocument(): Response {
  return json(buildOpenApi(env().appUrl));
}

export const GET = loggedRoute("openapi", openApiDocument);
