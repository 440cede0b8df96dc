import { json, errorResponse } from "@/lib/http/respond";
import { publicJwks } from "@/lib/receipts/signing-keys";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  try {
    return json(await publicJwks(), 200, { "cache-control": "public, max-age=60" });
  } catch (e) {
    return errorResponse(e, { route: "jwks" });
  }
}
