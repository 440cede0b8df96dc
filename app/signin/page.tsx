import type { Metadata } from "next";
import { signInWithOidc, signInWithPassword } from "@/app/actions/auth";
import { enabledSignInMethods } from "@/lib/auth/nextauth";
import { redirectSignedInPage } from "@/lib/auth/guards";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

const ERRORS: Record<string, string> = {
  credentials: "Wrong email or password, or the account is disabled.",
  AccessDenied: "Your account cannot sign in here. Ask an admin.",
  "rate-limited": "Too many sign-in attempts. Wait a minute and try again.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const params = await searchParams;
  await redirectSignedInPage();
  const methods = enabledSignInMethods();
  const error = params.error ? (ERRORS[params.error] ?? "Sign-in failed. Try again.") : null;
  const next = params.next ?? "/approvals";

  return (
    <main id="main" className="mx-auto flex min-h-screen max-w-sm flex-col justify-center gap-6 p-6">
      <h1 className="text-2xl font-semibold">Sign in to Countersign</h1>
      {error && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">
          {error}
        </p>
      )}
      {methods.oidc && (
        <form action={signInWithOidc}>
          <input type="hidden" name="next" value={next} />
          <button className="w-full rounded bg-slate-900 px-4 py-3 font-medium text-white hover:bg-slate-700">
            Sign in with {methods.oidc.name}
          </button>
        </form>
      )}
      {methods.credentials && (
        <form action={signInWithPassword} className="flex flex-col gap-4">
          <input type="hidden" name="next" value={next} />
          <label className="flex flex-col gap-1 text-sm font-medium">
            Email
            <input name="email" type="email" autoComplete="username" required className="rounded border border-slate-300 px-3 py-2 text-base" />
          </label>
          <label className="flex flex-col gap-1 text-sm font-medium">
            Password
            <input
              name="password"
              type="password"
              autoComplete="current-password"
              required
              className="rounded border border-slate-300 px-3 py-2 text-base"
            />
          </label>
          <button type="submit" className="rounded bg-blue-700 px-4 py-3 font-medium text-white hover:bg-blue-800">
            Sign in
          </button>
        </form>
      )}
      {!methods.credentials && !methods.oidc && (
        <p className="text-sm text-slate-700">
          No sign-in method is configured. Set AUTH_OIDC_ISSUER, AUTH_OIDC_ID and AUTH_OIDC_SECRET, or AUTH_CREDENTIALS=1.
        </p>
      )}
    </main>
  );
}
