import { env } from "@/lib/env";
import { json } from "@/lib/http/respond";
import { buildOpenApi } from "@/lib/openapi/build-openapi";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return json(buildOpenApi(env().appUrl));
}
