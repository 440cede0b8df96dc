// A real, local OpenID Connect issuer for the browser tests (oidc-provider),
// standing in for the company's identity provider.
//
// - One confidential client from e2e/e2e.json, code flow only, client_secret_basic
//   (what Auth.js uses for a generic "oidc" provider), PKCE accepted.
// - ID tokens carry email/email_verified/name (conformIdTokenClaims: false):
//   Auth.js builds the profile from the ID token alone.
// - Accounts: anyone. The sign-in page (/interaction/:uid) asks for one
//   "Username or email": the subject is exactly that value; the email is the
//   value itself when it contains "@", else `${value}@idp.example.com`.
//   "Email verified" (yes / no / claim omitted) sets the email_verified claim.
//   Consent for the one client is given automatically (a first-party app).
// - Fresh signing key and cookie keys per run, held in memory only; nothing
//   secret is printed. Exits on SIGTERM/SIGINT.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { createServer } from "node:http";
import Provider from "oidc-provider";
import { E2E } from "./settings.mjs";

const issuer = new URL(E2E.issuer);
const EMAIL_DOMAIN = "idp.example.com";

/** accountId → what the sign-in form said about that account. */
const accounts = new Map();

/**
 * emailVerified: true, false, or undefined to leave the claim out (as some IdPs do);
 * groups: the directory groups the `groups` claim names, or null to leave it out.
 */
function accountFor(login, emailVerified = true, groups = null) {
  const email = login.includes("@") ? login : `${login}@${EMAIL_DOMAIN}`;
  const name = `Test ${login.split("@")[0]}`;
  return {
    email,
    name,
    ...(emailVerified === undefined ? {} : { email_verified: emailVerified }),
    ...(groups === null ? {} : { groups }),
  };
}

const EMAIL_VERIFIED_CHOICES = { yes: true, no: false, omitted: undefined };

const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

const provider = new Provider(issuer.origin, {
  clients: [
    {
      client_id: E2E.clientId,
      client_secret: E2E.clientSecret,
      redirect_uris: [`${E2E.appUrl}/api/auth/callback/oidc`],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  jwks: { keys: [{ ...signingKey, alg: "RS256", use: "sig", kid: "e2e-" + randomBytes(4).toString("hex") }] },
  cookies: { keys: [randomBytes(32).toString("base64url")] },
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["name", "groups"],
  },
  conformIdTokenClaims: false,
  responseTypes: ["code"],
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(_ctx, sub) {
    const account = accounts.get(sub) ?? accountFor(sub);
    return {
      accountId: sub,
      async claims() {
        return { sub, ...account };
      },
    };
  },
});
// Requests reach us from loopback only; never trust forwarded headers.
provider.proxy = false;

const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

function page(res, status, title, body) {
  res.statusCode = status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
  );
}

async function readForm(req) {
  let body = "";
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 10_000) throw new Error("form too large");
  }
  return new URLSearchParams(body);
}

function loginForm(uid, loginHint) {
  const u = encodeURIComponent(uid);
  return `
    <form method="post" action="/interaction/${u}/login">
      <p><label for="login">Username or email</label>
        <input id="login" name="login" required autocomplete="off" value="${escapeHtml(loginHint ?? "")}"></p>
      <p><label for="email_verified">Email verified</label>
        <select id="email_verified" name="email_verified">
          <option value="yes" selected>yes</option>
          <option value="no">no</option>
          <option value="omitted">claim omitted</option>
        </select></p>
      <p><label for="groups">Groups</label>
        <input id="groups" name="groups" autocomplete="off" aria-describedby="groups-help">
        <span id="groups-help">Comma-separated; empty leaves the claim out.</span></p>
      <p><button type="submit">Continue</button></p>
    </form>
    <form method="post" action="/interaction/${u}/abort"><button type="submit">Cancel</button></form>`;
}

async function autoConsent(req, res, details) {
  const { prompt, params, session, grantId } = details;
  const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(" "));
  if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
  if (prompt.details.missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes)) {
      grant.addResourceScope(indicator, scopes.join(" "));
    }
  }
  await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

/** Our own interaction pages: /interaction/:uid[/login|/abort]. */
async function interaction(req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) return page(res, 400, "Sign-in expired", "<p>Start again from the application.</p>");

  if (req.method === "GET" && !action) {
    if (details.prompt.name === "login") {
      return page(res, 200, "Test IdP sign-in", loginForm(uid, details.params.login_hint));
    }
    if (details.prompt.name === "consent") return autoConsent(req, res, details);
    return page(res, 501, "Not implemented", `<p>prompt ${escapeHtml(details.prompt.name)}</p>`);
  }
  if (req.method === "POST" && action === "login") {
    const form = await readForm(req);
    const login = (form.get("login") ?? "").trim();
    if (!login || login.length > 200) return page(res, 400, "Test IdP sign-in", `<p role="alert">Enter a username.</p>${loginForm(uid)}`);
    const choice = form.get("email_verified") ?? "yes";
    if (!Object.hasOwn(EMAIL_VERIFIED_CHOICES, choice)) return page(res, 400, "Test IdP sign-in", `<p role="alert">Bad choice.</p>${loginForm(uid)}`);
    const groupsText = (form.get("groups") ?? "").trim();
    const groups = groupsText
      ? groupsText
          .split(",")
          .map((g) => g.trim())
          .filter(Boolean)
      : null;
    accounts.set(login, accountFor(login, EMAIL_VERIFIED_CHOICES[choice], groups));
    return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  }
  if (req.method === "POST" && action === "abort") {
    await readForm(req);
    return provider.interactionFinished(
      req,
      res,
      { error: "access_denied", error_description: "End-User aborted interaction" },
      { mergeWithLastSubmission: false },
    );
  }
  return page(res, 405, "Method not allowed", "");
}

const oidc = provider.callback();
function handle(req, res) {
  const { pathname } = new URL(req.url ?? "/", issuer);
  const m = /^\/interaction\/([\w-]+)(?:\/(login|abort))?\/?$/.exec(pathname);
  if (!m) return oidc(req, res);
  interaction(req, res, m[1], m[2]).catch((err) => {
    console.error(`oidc-issuer: interaction failed: ${err?.name ?? "Error"}: ${err?.message ?? err}`);
    if (!res.headersSent) page(res, 400, "Sign-in failed", "<p>Start again from the application.</p>");
    else res.end();
  });
}

// Listen on every loopback address the issuer's host name resolves to (only
// 127.0.0.1 here; ::1 too on hosts that map localhost to both), never on all
// interfaces.
const port = Number(issuer.port || 80);
const addresses = [...new Set((await lookup(issuer.hostname, { all: true })).map((a) => a.address))];
const servers = await Promise.all(
  addresses.map(
    (address) =>
      new Promise((resolve, reject) => {
        const server = createServer(handle);
        server.once("error", reject);
        server.listen(port, address, () => resolve(server));
      }),
  ),
);
console.log(`oidc-issuer: listening on ${issuer.origin} (${addresses.join(", ")}), client ${E2E.clientId}`);

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    for (const server of servers) {
      server.close();
      server.closeAllConnections();
    }
    process.exit(0);
  });
}
