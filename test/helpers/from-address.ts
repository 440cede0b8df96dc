// HTTP from a chosen loopback source address (127.0.0.0/8 is all loopback on
// Linux), so a test can play many clients whose socket addresses differ: the
// address the sign-in limits key on when no proxy is trusted.
import { request } from "node:http";
import { randomBytes } from "node:crypto";
import type { SignInAttempt } from "./sign-in";

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string; ms: number };

/** A random loopback address other than 127.0.0.1 (which the other suites sign in from). */
export function loopbackAddress(): string {
  const b = randomBytes(3);
  return `127.${(b[0]! % 250) + 2}.${b[1]}.${(b[2]! % 250) + 2}`;
}

/** One request to `base` (http://localhost:PORT…) sent from `from`; the Host header stays `localhost:PORT`. */
export function send(
  base: string,
  path: string,
  opts: { from: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  const url = new URL(path, base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: url.port,
        path: url.pathname + url.search,
        method: opts.method ?? "GET",
        localAddress: opts.from,
        headers: { host: url.host, ...(opts.body !== undefined ? { "content-length": String(Buffer.byteLength(opts.body)) } : {}), ...opts.headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: performance.now() - started }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** The CSRF token and its cookie, as a browser gets them before posting the sign-in form. */
export async function csrfFrom(base: string, from: string, headers: Record<string, string> = {}): Promise<{ token: string; cookies: string[] }> {
  const csrf = await send(base, "/api/auth/csrf", { from, headers });
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  return { token: csrfToken, cookies: [csrf.headers["set-cookie"] ?? []].flat() };
}

/** Posts the credentials form with a token from csrfFrom. */
export async function submitSignIn(
  base: string,
  from: string,
  csrf: { token: string; cookies: string[] },
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<SignInAttempt & { ms: number }> {
  const jar = csrf.cookies.map((c) => c.split(";")[0]).join("; ");
  const res = await send(base, "/api/auth/callback/credentials", {
    from,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar, ...headers },
    body: new URLSearchParams({ csrfToken: csrf.token, email, password, callbackUrl: `${base}/approvals` }).toString(),
  });
  const setCookies = [res.headers["set-cookie"] ?? []].flat();
  const session = setCookies.find((c) => /^(__Secure-)?authjs\.session-token=/.test(c));
  const location = [res.headers.location ?? ""].flat()[0] ?? "";
  return { ok: session !== undefined, location, setCookies: [...csrf.cookies, ...setCookies], session: session?.split(";")[0] ?? null, ms: res.ms };
}

/** Credentials sign-in as a browser does it (CSRF token, then the form), every request from `from`; `ms` times the form post. */
export async function signInFrom(
  base: string,
  from: string,
  email: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<SignInAttempt & { ms: number }> {
  return submitSignIn(base, from, await csrfFrom(base, from, headers), email, password, headers);
}

/**
 * The sign-in limits count fixed minutes (lib/rate-limit.ts), so a burst that
 * tests one must not straddle a minute's edge. Times one sign-in now (the
 * machine's load decides how long a burst takes) and, if `attempts` of them
 * would not fit in what is left of this minute with room to spare, waits for
 * the next minute to begin.
 */
export async function roomForBurst(base: string, attempts: number): Promise<void> {
  const started = Date.now();
  await signInFrom(base, loopbackAddress(), `timing-${randomBytes(4).toString("hex")}@example.com`, "guess");
  const needed = Math.min(59, ((Date.now() - started) / 1000) * attempts * 1.5 + 5);
  const into = (Date.now() / 1000) % 60;
  if (into > 60 - needed) await new Promise((r) => setTimeout(r, (60 - into + 0.5) * 1000));
}
