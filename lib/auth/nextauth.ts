// Auth.js (next-auth v5) wiring: credentials sign-in (AUTH_CREDENTIALS=1) and
// a generic OIDC provider (Okta, Entra ID, Google Workspace, Keycloak…).
// Sessions are JWTs (the credentials provider requires it) that carry a
// server-side session id; lib/auth/current-user.ts checks it on every request.
import "server-only";
import NextAuth, { CredentialsSignin, type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { z } from "zod";
import { env } from "../env";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { emailSchema } from "../users/schemas";
import { clientAddress } from "../http/client-address";
import { countRefusedSignIn, gateSignIn, noteSignInFailure } from "./sign-in-limits";
import { verifyPassword } from "./password";
import { createSession, revokeSession, SESSION_TTL_SECONDS } from "./sessions";
import { linkOidcIdentity } from "./oidc-users";
import { log } from "../log";

declare module "next-auth" {
  interface Session {
    sid?: string;
    uid?: string;
  }
}

const credentialsSchema = z.object({ email: emailSchema, password: z.string().min(1).max(200) });
const tokenClaims = z.object({ sid: z.string(), uid: z.string() });

/** A sign-in and a sign-out are the user's own acts (actor user:<email>); a refused sign-in names no user as actor (system). */
async function audit(type: "user.signed_in" | "user.sign_in_failed" | "user.signed_out", data: Record<string, string>, actor: Actor = "system") {
  await inTransaction(async () => recordAudit({ type, actor, data }));
}

class SignInRefused extends CredentialsSignin {
  override code = "refused";
}

class SignInRateLimited extends CredentialsSignin {
  override code = "rate-limited";
}

function config(): NextAuthConfig {
  const e = env();
  const providers: NextAuthConfig["providers"] = [];
  if (e.AUTH_CREDENTIALS) {
    providers.push(
      Credentials({
        id: "credentials",
        credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
        async authorize(raw, request) {
          const parsed = credentialsSchema.safeParse(raw);
          if (!parsed.success) throw new SignInRefused();
          const { email, password } = parsed.data;
          // Limits per client address and per (account, address); a flooded
          // account slows down rather than locking (lib/auth/sign-in-limits).
          // The answer is the same whether or not the email exists.
          const gate = await gateSignIn(email, clientAddress(request.headers));
          if (gate.limited) {
            await countRefusedSignIn("rate-limited");
            throw new SignInRateLimited();
          }
          if (gate.delayMs > 0) await new Promise((r) => setTimeout(r, gate.delayMs));
          const user = await db().user.findUnique({ where: { email }, omit: { passwordHash: false } });
          // Same work and the same answer whether the email exists or not.
          const ok = await verifyPassword(password, user?.passwordHash);
          if (ok === "busy") {
            await countRefusedSignIn("busy");
            throw new SignInRateLimited();
          }
          if (!ok || !user || user.disabledAt) {
            await noteSignInFailure(email);
            await audit("user.sign_in_failed", { user: email, method: "credentials" });
            throw new SignInRefused();
          }
          return { id: user.id, email: user.email, name: user.name };
        },
      }),
    );
  }
  if (e.AUTH_OIDC_ISSUER && e.AUTH_OIDC_ID && e.AUTH_OIDC_SECRET) {
    providers.push({
      id: "oidc",
      name: e.AUTH_OIDC_NAME,
      type: "oidc",
      issuer: e.AUTH_OIDC_ISSUER,
      clientId: e.AUTH_OIDC_ID,
      clientSecret: e.AUTH_OIDC_SECRET,
      authorization: { params: { scope: e.AUTH_OIDC_SCOPES } },
      checks: ["pkce", "state", "nonce"],
      // The profile (email, name, groups) from the userinfo endpoint instead of the ID token.
      ...(e.AUTH_OIDC_PROFILE_SOURCE === "userinfo" ? { idToken: false } : {}),
    });
  }

  return {
    secret: e.AUTH_SECRET,
    trustHost: true,
    providers,
    pages: { signIn: "/signin", error: "/signin" },
    session: { strategy: "jwt", maxAge: SESSION_TTL_SECONDS },
    callbacks: {
      async signIn({ user, account, profile }) {
        if (account?.provider !== "oidc") return true;
        const linked = await linkOidcIdentity(e.AUTH_OIDC_ISSUER ?? "", profile);
        if (!linked || "refused" in linked || linked.disabled) {
          await audit("user.sign_in_failed", { user: String(profile?.email ?? ""), method: "oidc" });
          return false;
        }
        // From here on, the user is ours, not the provider's subject.
        user.id = linked.userId;
        user.email = linked.email;
        return true;
      },
      async jwt({ token, user, account }) {
        if (user?.id && account) {
          const session = await createSession(user.id);
          await audit("user.signed_in", { user: user.email ?? "", method: account.provider }, user.email ? `user:${user.email}` : "system");
          return { ...token, sid: session.id, uid: user.id };
        }
        return token;
      },
      session({ session, token }) {
        const claims = tokenClaims.safeParse(token);
        if (claims.success) {
          session.sid = claims.data.sid;
          session.uid = claims.data.uid;
        }
        return session;
      },
    },
    // Auth.js's own lines become ours: JSON, with the error's class and code
    // only (its messages and stack traces are not vetted for submitted values).
    logger: {
      error(error) {
        const fields = {
          errorClass: error.name,
          type: "type" in error ? String(error.type) : undefined,
          code: "code" in error ? String(error.code) : undefined,
        };
        if (error instanceof CredentialsSignin) log.info("sign-in refused", fields);
        else log.warn("auth error", fields);
      },
      warn(code) {
        log.warn("auth warning", { code });
      },
      debug() {},
    },
    events: {
      async signOut(message) {
        const claims = tokenClaims.safeParse("token" in message ? message.token : null);
        if (claims.success) {
          await revokeSession(claims.data.sid);
          // Like a sign-in, a sign-out is the user's own act, named as sign-ins name them.
          const user = await db().user.findUnique({ where: { id: claims.data.uid }, select: { email: true } });
          if (user) await audit("user.signed_out", { user: user.email }, `user:${user.email}`);
          else await audit("user.signed_out", { userId: claims.data.uid });
        }
      },
    },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => config());

export function enabledSignInMethods() {
  const e = env();
  return {
    credentials: e.AUTH_CREDENTIALS,
    oidc: e.AUTH_OIDC_ISSUER ? { name: e.AUTH_OIDC_NAME } : null,
  };
}
