import type { Metadata } from "next";
import Link from "next/link";
import { requirePermissionPage } from "@/lib/auth/guards";
import { findServiceDeliveries, listServices, type DeliveryView } from "@/lib/services/manage-services";
import { ActionForm } from "../_components/action-form";
import { StatusBadge } from "@/components/status-badge";
import { LocalTime } from "@/components/time";
import { AdminPage, Section, TextField } from "../_components/admin-page";
import { CREDENTIAL_WORDS, CREDENTIALS, type Credential } from "@/lib/services/rotate-credential";
import { ServiceUrlForm } from "./service-url-form";
import {
  createServiceAction,
  disableServiceAction,
  finishRotationAction,
  retryDeliveryAction,
  rotateSecretAction,
  updateCallbackUrlAction,
  updateNotifyWebhookUrlAction,
} from "./actions";

export const metadata: Metadata = { title: "Services" };
export const dynamic = "force-dynamic";

function Deliveries({ slug, deliveries }: { slug: string; deliveries: DeliveryView[] }) {
  if (deliveries.length === 0) return <p className="text-sm text-slate-600">No callbacks yet.</p>;
  return (
    <ul className="flex flex-col gap-2" aria-label={`Callback deliveries of ${slug}`}>
      {deliveries.map((d) => (
        <li key={d.id} className="rounded border border-slate-200 p-2 text-sm" data-testid="delivery">
          <div className="flex flex-wrap items-center gap-2">
            <Link href={`/approvals/${d.approvalId}`} className="break-all font-mono text-blue-700 hover:underline">
              {d.approvalId}
            </Link>
            <span data-testid="delivery-type" className="text-xs text-slate-600">
              {d.type}
            </span>
            <span data-testid="delivery-status" className="rounded bg-slate-100 px-2 py-0.5 text-xs font-medium">
              {d.status}
            </span>
            <span className="text-xs text-slate-600">
              {d.attempts} attempt{d.attempts === 1 ? "" : "s"} · queued <LocalTime at={d.createdAt.toISOString()} />
              {d.status === "pending" && (
                <>
                  {" "}
                  · next <LocalTime at={d.nextAttemptAt.toISOString()} />
                </>
              )}
              {d.deliveredAt && (
                <>
                  {" "}
                  · delivered <LocalTime at={d.deliveredAt.toISOString()} />
                </>
              )}
            </span>
          </div>
          {d.log.length > 0 && (
            <ol className="mt-1 flex flex-col gap-0.5 pl-2 text-xs" aria-label="Attempts, newest first">
              {d.log.map((a) => (
                <li key={a.at.toISOString()} data-testid="attempt">
                  <LocalTime at={a.at.toISOString()} /> —{" "}
                  {a.statusCode !== null ? `HTTP ${a.statusCode}` : a.errorClass === "blocked-target" ? "not sent" : "no answer"}
                  {a.errorClass ? ` (${a.errorClass})` : ""} · {a.durationMs} ms
                </li>
              ))}
            </ol>
          )}
          {d.status !== "delivered" && (
            <ActionForm action={retryDeliveryAction} submitLabel="Retry now" className="mt-2">
              <input type="hidden" name="deliveryId" value={d.id} />
            </ActionForm>
          )}
        </li>
      ))}
    </ul>
  );
}

/** What stays valid while a credential rotates. */
const ROTATING_WORDS: Record<Credential, string> = {
  "webhook-secret": "two secrets valid",
  "api-token": "two tokens valid",
  "callback-secret": "callbacks signed with both secrets",
};

/** Start and finish one credential's rotation. Always rendered, so the new value it shows survives the page refresh. */
function RotationForms({ slug, credential, rotating }: { slug: string; credential: Credential; rotating: boolean }) {
  const words = CREDENTIAL_WORDS[credential];
  return (
    <div className="flex flex-wrap gap-3">
      <ActionForm action={rotateSecretAction} submitLabel={`Rotate ${words}`}>
        <input type="hidden" name="slug" value={slug} />
        <input type="hidden" name="credential" value={credential} />
      </ActionForm>
      <ActionForm
        action={finishRotationAction}
        submitLabel={`Finish ${words} rotation`}
        disabled={!rotating}
        confirm={`Finish the rotation? The old ${words} stops working at once.`}
      >
        <input type="hidden" name="slug" value={slug} />
        <input type="hidden" name="credential" value={credential} />
      </ActionForm>
    </div>
  );
}

export default async function ServicesPage() {
  const me = await requirePermissionPage("admin:services");
  const services = await listServices();
  const deliveries = new Map(await Promise.all(services.map(async (s) => [s.slug, await findServiceDeliveries(s.slug, 10)] as const)));

  return (
    <AdminPage user={me} title="Services">
      <Section title="Register a service" id="create-service-h">
        <ActionForm action={createServiceAction} submitLabel="Create service">
          <TextField label="Slug" name="slug" required placeholder="billing-agent" className="w-full sm:w-56" />
          <TextField
            label="Callback URL"
            name="callbackUrl"
            type="url"
            placeholder="https://…/countersign-callback"
            className="w-full sm:w-80"
            help="Optional"
          />
        </ActionForm>
      </Section>

      <Section title={`Services (${services.length})`} id="services-h">
        {services.length === 0 && <p className="text-sm text-slate-600">No services yet.</p>}
        <ul className="flex flex-col gap-3">
          {services.map((s) => (
            <li key={s.slug} aria-label={`Service ${s.slug}`} className="flex flex-col gap-3 rounded border border-slate-200 p-3">
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-mono font-medium">{s.slug}</span>
                <StatusBadge status={s.disabled ? "disabled" : "active"} testId="service-status" small />
                {s.rotations.map((c) => (
                  <span key={c} className="rounded bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900">
                    {CREDENTIAL_WORDS[c]} rotating: {ROTATING_WORDS[c]}
                  </span>
                ))}
                <span className="text-xs text-slate-600">
                  created <LocalTime at={s.createdAt.toISOString()} />
                </span>
              </div>
              <p className="break-all text-sm">Callback URL: {s.callbackUrl ?? "none"}</p>
              <p className="break-all text-sm" data-testid="notify-webhook-url">
                Notification webhook URL: {s.notifyWebhookUrl ?? "none"}
              </p>

              {!s.disabled && (
                <>
                  <ServiceUrlForm
                    action={updateCallbackUrlAction}
                    slug={s.slug}
                    name="callbackUrl"
                    label="New callback URL"
                    value={s.callbackUrl}
                    help="Empty removes it."
                    submitLabel="Save callback URL"
                  />
                  <ServiceUrlForm
                    action={updateNotifyWebhookUrlAction}
                    slug={s.slug}
                    name="notifyWebhookUrl"
                    label="Notification webhook URL"
                    value={s.notifyWebhookUrl}
                    help="This service's review notices are also sent here, signed with its callback secret."
                    submitLabel="Save notification webhook URL"
                    clearLabel="Clear notification webhook URL"
                  />
                  {CREDENTIALS.map((c) => (
                    <RotationForms key={c} slug={s.slug} credential={c} rotating={s.rotations.includes(c)} />
                  ))}
                </>
              )}
              <ActionForm
                action={disableServiceAction}
                submitLabel={s.disabled ? "Disabled" : "Disable service"}
                danger
                disabled={s.disabled}
                confirm={`Disable ${s.slug} for good? This cannot be undone: its webhooks and API tokens are refused from now on, and a disabled service cannot be enabled again (register a new one instead).`}
              >
                <input type="hidden" name="slug" value={s.slug} />
              </ActionForm>

              <details>
                <summary className="cursor-pointer text-sm text-blue-700">Callback deliveries</summary>
                <div className="mt-2">
                  <Deliveries slug={s.slug} deliveries={deliveries.get(s.slug) ?? []} />
                </div>
              </details>
            </li>
          ))}
        </ul>
      </Section>
    </AdminPage>
  );
}
