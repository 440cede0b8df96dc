// Liveness: the process is up and serving. No database access.
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

export const GET = loggedRoute("health", () => Response.json({ status: "ok" }, { headers: { "cache-control": "no-store" } }));
