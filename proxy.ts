// Per-request Content-Security-Policy with a fresh nonce (Next.js applies it
// to its own scripts when it finds the policy on the request). Headers only:
// authorization is never decided here — every page, action and route checks
// it itself (see lib/auth/guards.ts).
import { NextResponse, type NextRequest } from "next/server";
import { requestIdFrom } from "@/lib/request-context";

export function proxy(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID());
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    // Styles are not scripts: Next and React set a few inline styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    // The Web Push service worker (/sw.js): 'strict-dynamic' above would otherwise govern its registration.
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("content-security-policy", csp);
  // Pages and server actions log under this id (lib/request-context).
  const requestId = requestIdFrom(request.headers);
  requestHeaders.set("x-request-id", requestId);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", csp);
  response.headers.set("x-request-id", requestId);
  // Behind a TLS-terminating proxy the scheme arrives in X-Forwarded-Proto.
  const https = request.nextUrl.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  if (https) response.headers.set("strict-transport-security", "max-age=63072000; includeSubDomains");
  return response;
}

export const config = {
  matcher: [
    // Pages only: not API routes, static files or prefetches.
    { source: "/((?!api|scim|_next/static|_next/image|favicon.ico|\\.well-known).*)" },
  ],
};
