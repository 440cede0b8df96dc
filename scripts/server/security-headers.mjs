// Security headers on every response: Next.js adds them to what it serves
// (next.config.ts), the custom server to the agents' routes it serves itself
// (lean-http.mjs). Pages also get a nonce-based CSP from proxy.ts.
export const SECURITY_HEADERS = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  // not "no-referrer": Chromium then sends "Origin: null" on same-origin form posts, which server actions refuse.
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];
