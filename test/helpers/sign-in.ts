// Signs in through Auth.js's credentials endpoint, as a browser would, and
// returns the session cookie ("name=value") for later requests.
export async function signInWithPassword(base: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const res = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${base}/approvals` }),
  });
  const session = res.headers.getSetCookie().find((c) => /^(__Secure-)?authjs\.session-token=/.test(c));
  if (!session) throw new Error(`sign-in failed: ${res.status}`);
  return session.split(";")[0]!;
}
