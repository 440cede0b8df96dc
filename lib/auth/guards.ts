// Every guard of every surface, in one place. Each reads current database
// state (getCurrentUser: a live session, roles as they are now) and asks the
// permission table (permissions.ts); none decides a product rule.
//   pages            requireUserPage, requirePermissionPage: /signin or the 403 page;
//                    redirectSignedInPage for the sign-in page
//   server actions   runAction(permission, …): origin, session, permission, errors → form state
//   sign-in actions  assertSameOrigin (there is no session yet)
//   route handlers   withSession(permission, …) for the console's JSON and streams,
//                    withService for executor calls (API token),
//                    withWebhook for signed webhooks (verified in lib/approvals/receive-webhook.ts),
//                    withScim for the directory's SCIM client (bearer token → actor scim:<token id>)
// The one lib/ module that imports next/*: it is where Next's request state
// (headers, redirects, the page cache) meets the product.
import "server-only";
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { ZodError } from "zod";
import type { Actor } from "../audit/events";
import { AppError, issuesOf, type Issue } from "../errors";
import { env } from "../env";
import { errorFields, log } from "../log";
import { isDatabaseUnavailable } from "../db/unavailable";
import { errorBody, errorResponse, json, respondWith, type HttpResult, type RequestBody } from "../http/respond";
import { requestIdFrom, runWithRequestId } from "../request-context";
import { authenticateServiceToken, type AuthenticatedService } from "../services/authenticate-service";
import { getCurrentUser, type CurrentUser } from "./current-user";
import { can, type Permission } from "./permissions";
import { isSameOrigin } from "./same-origin";
import { authenticateScimToken } from "../scim/scim-tokens";
import { scimError } from "../scim/scim-error";
import { scimFailure } from "../scim/scim-http";

type Ctx<P> = { params: Promise<P> };
type RouteHandler<P> = (req: Request, ctx: Ctx<P>) => Promise<Response>;

// ---- pages ----

export async function requireUserPage(): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) redirect("/signin");
  return user;
}

/** The sign-in page: someone already signed in goes to the queue. */
export async function redirectSignedInPage(): Promise<void> {
  if (await getCurrentUser()) redirect("/approvals");
}

export async function requirePermissionPage(permission: Permission): Promise<CurrentUser> {
  const user = await requireUserPage();
  if (!can(user, permission)) forbidden();
  return user;
}

// ---- route handlers ----

/** Console routes: a live session holding the permission, or 401/403 as JSON. */
export function withSession<P = Record<string, never>>(
  permission: Permission,
  handler: (req: Request, user: CurrentUser, params: P) => Promise<Response>,
): RouteHandler<P> {
  return async (req, ctx) => {
    const user = await getCurrentUser();
    if (!user) return json({ error: "unauthorized" }, 401);
    if (!can(user, permission)) return json({ error: "forbidden" }, 403);
    return handler(req, user, (await ctx?.params) as P);
  };
}

/**
 * Console routes that change something (POST): withSession, and the request
 * must come from APP_URL's origin, as for server actions (runAction); errors
 * (AppError, zod) become the standard JSON answer.
 */
export function withSessionChange<P = Record<string, never>>(
  permission: Permission,
  handler: (req: Request, user: CurrentUser, params: P) => Promise<Response>,
): RouteHandler<P> {
  return withSession<P>(permission, async (req, user, params) => {
    try {
      if (!isSameOrigin(req.headers.get("origin"), env().appUrl)) throw new AppError("forbidden", "cross-site request refused");
      return await handler(req, user, params);
    } catch (e) {
      // The console shows our own wording (never the input) beside the code.
      if (e instanceof AppError) return json({ ...errorBody(e), message: e.message }, e.status);
      return errorResponse(e, { route: new URL(req.url).pathname.replace(/apr_[a-z0-9]+/, ":id") });
    }
  });
}

/**
 * Routes for admins and for services alike (e.g. a reviewer's passkeys): a
 * bearer token names a service (401 if it does not); without one, a live
 * session holding the permission (401/403).
 */
export function withServiceOrSession<P>(
  permission: Permission,
  handler: (req: Request, who: { service: AuthenticatedService } | { user: CurrentUser }, params: P) => Promise<Response>,
): RouteHandler<P> {
  return async (req, ctx) => {
    try {
      const authorization = req.headers.get("authorization");
      if (authorization !== null) {
        const service = await authenticateServiceToken(authorization);
        if (!service) throw new AppError("unauthorized");
        return await handler(req, { service }, await ctx.params);
      }
      const user = await getCurrentUser();
      if (!user) throw new AppError("unauthorized");
      if (!can(user, permission)) throw new AppError("forbidden");
      return await handler(req, { user }, await ctx.params);
    } catch (e) {
      return errorResponse(e, { route: new URL(req.url).pathname.replace(/\/reviewers\/[^/]+/, "/reviewers/:email") });
    }
  };
}

/** Executor routes: bearer token → service, or 401. The handler must scope every query to the service. */
export function withService<P>(handler: (req: Request, service: AuthenticatedService, params: P) => Promise<Response>): RouteHandler<P> {
  return async (req, ctx) => {
    try {
      const service = await authenticateServiceToken(req.headers.get("authorization"));
      if (!service) throw new AppError("unauthorized");
      return await handler(req, service, await ctx.params);
    } catch (e) {
      return errorResponse(e, { route: new URL(req.url).pathname.replace(/apr_[a-z0-9]+/, ":id") });
    }
  };
}

/**
 * Webhook routes: the signature can only be checked after the service is
 * found and the body read under its size cap, so `receive` verifies it
 * (lib/approvals/receive-webhook.ts); this hands it the raw request parts.
 */
export function withWebhook(receive: (delivery: RequestBody & { slug: string }) => Promise<HttpResult>): RouteHandler<{ slug: string }> {
  return async (req, ctx) => respondWith(await receive({ slug: (await ctx.params).slug, headers: req.headers, body: req.body }));
}

/**
 * SCIM routes: a SCIM bearer token (lib/scim/scim-tokens.ts) or 401, and
 * every failure in SCIM's error schema. The token acts for the directory:
 * what it changes is recorded with actor `scim:<token id>`.
 */
export function withScim<P>(handler: (req: Request, actor: `scim:${string}`, params: P) => Promise<Response>): RouteHandler<P> {
  return async (req, ctx) => {
    try {
      const client = await authenticateScimToken(req.headers.get("authorization"));
      if (!client) throw scimError(401, null, "a valid SCIM bearer token is required");
      return await handler(req, `scim:${client.id}`, await ctx.params);
    } catch (e) {
      return scimFailure(e, { route: new URL(req.url).pathname.replace(/\/(usr|grp)_[a-z0-9]+/, "/:id") });
    }
  };
}

// ---- server actions ----

/** The answer of a form-bound server action (useActionState). Secrets appear here once and nowhere else. */
export type ActionState = {
  ok: boolean;
  message: string;
  detail?: string[];
  secrets?: Array<{ label: string; value: string }>;
} | null;

export type FormAction<S = ActionState> = (prev: S, formData: FormData) => Promise<S>;

/** What a refused or failed action says, per surface; without `forbidden`/`signedOut`, the error's own message. */
export type ActionWording = {
  /** An AppError without a message of its own. */
  refused: string;
  /** The database could not be reached: the change may or may not have been made. */
  unavailable: string;
  /** Anything unexpected. */
  failed: string;
  forbidden?: string;
  signedOut?: string;
  /** Prefix of zod issues; without it a ZodError counts as unexpected. */
  invalid?: string;
};

type Failed = { ok: false; message: string };

/** Every admin action's wording. */
export const ADMIN_WORDING: ActionWording = {
  refused: "Refused.",
  forbidden: "Not allowed: this needs the admin role.",
  signedOut: "Your session has ended: sign in again.",
  invalid: "Not saved: ",
  unavailable: "The database could not be reached. Reload the page in a moment to see whether the change was saved.",
  failed: "Something went wrong; nothing was changed. Try again.",
};

/**
 * The one wrapper of every form server action: the request must come from
 * APP_URL's origin (Next checks Origin only against Host or X-Forwarded-Host,
 * which a client can choose, and lets a request without Origin through), from
 * a live session holding the permission (roles read now); then `fn`, then a
 * refreshed `path`. Errors become messages: our own codes and zod issues as
 * they are, anything else generic (the detail goes to the server log only).
 */
export async function runAction<S extends { ok: boolean; message: string }>(
  permission: Permission,
  options: ActionOptions,
  fn: (user: CurrentUser & { actor: Actor }) => Promise<S>,
): Promise<S | Failed> {
  return runWithRequestId(requestIdFrom(await headers()), async () => {
    try {
      const user = await requireUserAction(permission);
      const result = await fn({ ...user, actor: `user:${user.email}` });
      revalidatePath(options.path);
      return result;
    } catch (e) {
      return actionFailure(e, options);
    }
  });
}

type ActionOptions = {
  name: string;
  path: string;
  wording: ActionWording;
  logFields?: Record<string, unknown>;
  /**
   * The form's field labels by input path ("" for a value parsed alone): with
   * them, refusals read as sentences ("TTL (seconds) must be at least 60.")
   * rather than codes ("ttl: must be at least 60").
   */
  labels?: Readonly<Record<string, string>>;
};

/** "no user with that email" → "No user with that email." */
const sentence = (text: string) => {
  const t = text.trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".");
};

/** An issue with its field's label: the path's first part looked up, else its words ("escalate_after" → "Escalate after"). */
function labelled(issue: Issue, labels: Readonly<Record<string, string>>): string {
  const head = issue.path.split(".")[0] ?? "";
  const label = labels[head] ?? (head ? head.replaceAll("_", " ") : "The value");
  return sentence(`${label} ${issue.message}`);
}

function actionFailure(e: unknown, { name, path, wording, logFields, labels }: ActionOptions): Failed {
  if (e instanceof AppError) {
    if (e.code === "forbidden" && wording.forbidden) return { ok: false, message: wording.forbidden };
    if (e.code === "unauthorized" && wording.signedOut) return { ok: false, message: wording.signedOut };
    if (e.message === e.code) return { ok: false, message: wording.refused };
    if (!labels) return { ok: false, message: e.message };
    const issues = e.details.issues;
    if (issues?.length && wording.invalid) return { ok: false, message: wording.invalid + issues.map((i) => labelled(i, labels)).join(" ") };
    return { ok: false, message: sentence(e.message) };
  }
  if (e instanceof ZodError && wording.invalid && labels) {
    return {
      ok: false,
      message:
        wording.invalid +
        issuesOf(e)
          .map((i) => labelled(i, labels))
          .join(" "),
    };
  }
  if (e instanceof ZodError && wording.invalid) {
    return {
      ok: false,
      message:
        wording.invalid +
        issuesOf(e)
          .map((i) => `${i.path || "value"}: ${i.message}`)
          .join("; "),
    };
  }
  const fields = logFields ?? { path };
  if (isDatabaseUnavailable(e)) {
    log.warn(`${name}: database unavailable`, { ...fields, ...errorFields(e) });
    return { ok: false, message: wording.unavailable };
  }
  log.error(`${name} failed`, { ...fields, ...errorFields(e) });
  return { ok: false, message: wording.failed };
}

async function requireUserAction(permission: Permission): Promise<CurrentUser> {
  await assertSameOrigin();
  const user = await getCurrentUser();
  if (!user) throw new AppError("unauthorized", "sign in again");
  if (!can(user, permission)) throw new AppError("forbidden", "not allowed");
  return user;
}

/** The Origin header must be exactly APP_URL's origin (same-origin.ts); sign-in and sign-out use it alone. */
export async function assertSameOrigin(): Promise<void> {
  const h = await headers();
  if (!isSameOrigin(h.get("origin"), env().appUrl)) throw new AppError("forbidden", "cross-site request refused");
}
