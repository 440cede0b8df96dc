// The origin state-changing requests must come from: APP_URL's scheme, host
// and port, exactly. Request headers (Host, X-Forwarded-Host,
// X-Forwarded-Proto) are never consulted: a client or a misconfigured proxy
// chooses them. No Next.js imports, so the rule is unit-testable.

/** The serialized origin of the app's public URL, e.g. "https://countersign.example". */
export function expectedOrigin(appUrl: string): string {
  return new URL(appUrl).origin;
}

/** True only when the Origin header names exactly the app's origin; a missing or "null" Origin is not. */
export function isSameOrigin(originHeader: string | null | undefined, appUrl: string): boolean {
  if (!originHeader || originHeader === "null") return false;
  return originHeader === expectedOrigin(appUrl);
}
