// Credentials sign-in through Auth.js's endpoints, as a browser does it:
// fetch a CSRF token (and its cookie), then post the form. Plain JavaScript so
// that the bench (scripts/bench.mjs) and the tests (test/helpers/sign-in.ts)
// sign in the same way.

/** One attempt; `headers` can play a TLS proxy's part (X-Forwarded-For, X-Forwarded-Proto). */
export async function credentialsSignIn(base, email, password, headers = {}) {
  const csrf = await fetch(`${base}/api/auth/csrf`, { headers });
  const { csrfToken } = await csrf.json();
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
