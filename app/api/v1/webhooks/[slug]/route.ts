// POST /api/v1/webhooks/{service_slug}: a service asks for approval (CONTRACT §3).
// Order matters: the service, the size cap while reading, then the signature
// (one uniform 401), then the service's rate limit, then JSON and schema, then
// ingestion. Requests that fail the signature, or name no enabled service, get
// the same 401 however many arrive (a 429 there would tell which slugs exist);
// they cost one lookup and one shared per-minute counter (record-rejection).
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { errorResponse, json, readBodyLimited } from "@/lib/http/respond";
import { parseJsonBody } from "@/lib/http/parse-json";
import { approvalRequestedSchema } from "@/lib/approvals/schemas";
import { ingestApproval } from "@/lib/approvals/ingest-approval";
import { recordWebhookRejection } from "@/lib/approvals/record-rejection";
import { findServiceForWebhook } from "@/lib/services/service-secrets";
import { slugSchema } from "@/lib/services/schemas";
import { hitRateLimit } from "@/lib/rate-limit";
import { invalidRequest } from "@/lib/errors";
import { verifyWebhook, webhookHeadersFrom } from "@/lib/webhooks/standard-webhooks";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

const MAX_BODY_BYTES = 256 * 1024;

async function receiveWebhook(req: Request, ctx: { params: Promise<{ slug: string }> }): Promise<Response> {
  const { slug } = await ctx.params;
  let service: Awaited<ReturnType<typeof findServiceForWebhook>> = null;
  try {
    const validSlug = slugSchema.safeParse(slug);
    service = validSlug.success ? await findServiceForWebhook(db(), validSlug.data) : null;

    const body = await readBodyLimited(req, MAX_BODY_BYTES);
    if (body === "too-large") throw new AppError("too-large");

    const headers = webhookHeadersFrom(req.headers);
    const verified = service
      ? verifyWebhook({ secrets: service.webhookSecrets, headers, rawBody: body })
      : { ok: false as const, reason: "unknown-service" };
    if (!service || !verified.ok || !headers?.id) {
      throw new AppError("invalid-signature", verified.ok ? "missing-headers" : verified.reason);
    }

    const limit = await hitRateLimit(db(), `webhook:${service.id}`, service.rateLimitPerMinute);
    if (!limit.allowed) throw new AppError("rate-limited", "rate-limited", { retryAfter: limit.retryAfter });

    const event = approvalRequestedSchema.safeParse(parseJsonBody(body));
    if (!event.success) throw invalidRequest(event.error);

    const result = await ingestApproval(service, headers.id, event.data);
    return json(result.body, result.created ? 201 : 200);
  } catch (e) {
    if (e instanceof AppError && e.status < 500) await recordWebhookRejection(service, e.code === "invalid-signature" ? e.message : e.code, e.status);
    return errorResponse(e, { route: "webhook" });
  }
}

export const POST = loggedRoute("webhook", receiveWebhook);
