// The whole of POST /api/v1/webhooks/{service_slug} (docs/api.md), from the
// raw request parts to the answer. Order matters: the service, the size cap
// while reading, then the signature (one uniform 401), then the service's rate
// limit, then JSON and schema, then ingestion. Requests that fail the
// signature, or name no enabled service, get the same 401 however many arrive
// (a 429 there would tell which slugs exist); they cost one lookup and one
// shared per-minute counter (record-rejection).
import "server-only";
import { direct } from "../db/sql";
import { AppError, invalidRequest } from "../errors";
import { errorResult, readBodyLimited, type HttpResult, type RequestBody } from "../http/respond";
import { parseJsonBody } from "../http/parse-json";
import { hitRateLimit } from "../rate-limit";
import { findServiceForWebhook } from "../services/service-secrets";
import { slugSchema } from "../services/schemas";
import { verifyWebhook, webhookHeadersFrom } from "@countersign/client";
import { approvalRequestedSchema } from "./schemas";
import { ingestApproval } from "./ingest-approval";
import { recordWebhookRejection } from "./record-rejection";

const MAX_BODY_BYTES = 256 * 1024;

/** The raw parts of a webhook delivery: the path's slug, and the request's headers and body stream. */
export type WebhookDelivery = RequestBody & { slug: string };

export async function receiveWebhook(delivery: WebhookDelivery): Promise<HttpResult> {
  let service: Awaited<ReturnType<typeof findServiceForWebhook>> = null;
  try {
    const validSlug = slugSchema.safeParse(delivery.slug);
    service = validSlug.success ? await findServiceForWebhook(direct(), validSlug.data) : null;

    const body = await readBodyLimited(delivery, MAX_BODY_BYTES);
    if (body === "too-large") throw new AppError("too-large");

    const headers = webhookHeadersFrom(delivery.headers);
    const verified = service
      ? verifyWebhook({ secrets: service.webhookSecrets, headers, rawBody: body })
      : { ok: false as const, reason: "unknown-service" };
    if (!service || !verified.ok || !headers?.id) {
      throw new AppError("invalid-signature", verified.ok ? "missing-headers" : verified.reason);
    }

    const limit = await hitRateLimit(direct(), `webhook:${service.id}`, service.rateLimitPerMinute);
    if (!limit.allowed) throw new AppError("rate-limited", "rate-limited", { retryAfter: limit.retryAfter });

    const event = approvalRequestedSchema.safeParse(parseJsonBody(body));
    if (!event.success) throw invalidRequest(event.error);

    const result = await ingestApproval(service, headers.id, event.data);
    return { status: result.created ? 201 : 200, body: result.body };
  } catch (e) {
    if (e instanceof AppError && e.status < 500) {
      await recordWebhookRejection(service, e.code === "invalid-signature" ? e.message : e.code, e.status);
    }
    return errorResult(e, { route: "webhook" });
  }
}
