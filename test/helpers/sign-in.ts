// Credentials sign-in through Auth.js's endpoints, as a browser does it:
// fetch a CSRF token (and its cookie), then post the form.

export type SignInAttempt = { ok: boolean; location: string; setCookies: string[]; session: string | null };

/** One attempt; `headers` can play a TLS proxy's part (X-Forwarded-For, X-Forwarded-Proto). */
export async function credentialsSignIn(base: string, email: string, password: string, headers: Record<string, string> = {}): Promise<SignInAttempt> {
  const csrf = await fetch(`${base}/api/auth/csrf`, { headers });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = csrf.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar, ...headers },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${base}/approvals` }),
  });
  const setCookies = [...csrf.headers.getSetCookie(), ...res.headers.getSetCookie()];
  const session = res.headers.getSetCookie().find((c) => /^(__Secure-)?authjs\.session-token=/.test(c));
  return { ok: session !== undefined, location: res.headers.get("location") ?? "", setCookies, session: session?.split(";")[0] ?? null };
}

/** Signs in and returns the session cookie ("name=value"), or throws. */
export async function signInWithPassword(base: string, email: string, password: string): Promise<string> {
  const r = await credentialsSignIn(base, email, password);
  if (!r.session) throw new Error(`sign-in failed: ${r.location}`);
  return r.session;
}
