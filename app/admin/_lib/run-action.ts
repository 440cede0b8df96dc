// The one wrapper of every admin server action: same-origin check, a live
// session, the admin role read now from the database (requireUserAction),
// then the lib/ function, then a refreshed page. Errors become messages:
// our own codes and zod issues as they are, anything else generic (the
// detail goes to the server log only). Not a "use server" module: nothing
// here is callable from the browser.
import "server-only";
import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { requestIdFrom, runWithRequestId } from "@/lib/request-context";
import { ZodError } from "zod";
import { requireUserAction } from "@/lib/auth/guards";
import type { Permission } from "@/lib/auth/permissions";
import type { Actor } from "@/lib/audit/events";
import { AppError, issuesOf } from "@/lib/errors";
import { errorFields, log } from "@/lib/log";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import type { ActionState } from "./action-state";

export async function runAdminAction(
  permission: Permission,
  path: string,
  fn: (actor: Actor) => Promise<NonNullable<ActionState>>,
): Promise<ActionState> {
  return runWithRequestId(requestIdFrom(await headers()), () => runLogged(permission, path, fn));
}

async function runLogged(
  permission: Permission,
  path: string,
  fn: (actor: Actor) => Promise<NonNullable<ActionState>>,
): Promise<ActionState> {
  try {
    const user = await requireUserAction(permission);
    const result = await fn(`user:${user.email}`);
    revalidatePath(path);
    return result;
  } catch (e) {
    if (e instanceof AppError) {
      if (e.code === "forbidden") return { ok: false, message: "Not allowed: this needs the admin role." };
      if (e.code === "unauthorized") return { ok: false, message: "Your session has ended: sign in again." };
      return { ok: false, message: e.message === e.code ? "Refused." : e.message };
    }
    if (e instanceof ZodError) {
      return { ok: false, message: "Not saved: " + issuesOf(e).map((i) => `${i.path || "value"}: ${i.message}`).join("; ") };
    }
    if (isDatabaseUnavailable(e)) {
      log.warn("admin action: database unavailable", { path, ...errorFields(e) });
      return { ok: false, message: "The database could not be reached. Reload the page in a moment to see whether the change was saved." };
    }
    log.error("admin action failed", { path, ...errorFields(e) });
    return { ok: false, message: "Something went wrong; nothing was changed. Try again." };
  }
}

/** A form field as text ("" when missing). */
export function field(formData: FormData, name: string): string {
  const v = formData.get(name);
  return typeof v === "string" ? v.trim() : "";
}

/** A form field, or undefined when empty. */
export function optionalField(formData: FormData, name: string): string | undefined {
  return field(formData, name) || undefined;
}
