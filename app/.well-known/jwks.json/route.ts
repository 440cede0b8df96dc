import { json, errorResponse } from "@/lib/http/respond";
import { publicJwks } from "@/lib/receipts/signing-keys";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

async function publishJwks(): Promise<Response> {
  try {
    return json(await publicJwks(), 200, { "cache-control": "public, max-age=60" });
  } catch (e) {
    return errorResponse(e, { route: "jwks" });
  }
}

export const GET = loggedRoute("jwks", publishJwks);
