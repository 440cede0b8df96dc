// GET /api/metrics: Prometheus text format, for "Authorization: Bearer
// <METRICS_TOKEN>"; 404 while METRICS_TOKEN is unset (docs/operations.md,
// "Metrics"). Who may scrape and what the text holds: lib/metrics/scrape.ts.
import { loggedRoute } from "@/lib/http/logged-route";
import { authorizeScrape, renderMetrics } from "@/lib/metrics/scrape";

export const dynamic = "force-dynamic";

export const GET = loggedRoute("metrics", async (req: Request) => {
  authorizeScrape(req.headers.get("authorization"));
  const { body, contentType } = await renderMetrics();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});
