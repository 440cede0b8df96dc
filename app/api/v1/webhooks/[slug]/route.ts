// POST /api/v1/webhooks/{service_slug}: a service asks for approval (docs/api.md).
// The whole pipeline (service, size cap, signature, rate limit, schema, ingest,
// refusal tally) is lib/approvals/receive-webhook.ts; withWebhook hands it the
// raw request and answers its result. Each answer is counted by status code
// for GET /api/metrics (lib/metrics/count.ts).
import { receiveWebhook } from "@/lib/approvals/receive-webhook";
import { withWebhook } from "@/lib/auth/guards";
import { loggedRoute } from "@/lib/http/logged-route";
import { countWebhookAnswers } from "@/lib/metrics/count";

export const dynamic = "force-dynamic";

export const POST = countWebhookAnswers(loggedRoute("webhook", withWebhook(receiveWebhook)));
