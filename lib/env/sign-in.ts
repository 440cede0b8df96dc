// Sign-in: the email and password form, and the company's identity provider (OIDC).
import { z } from "zod";
import { doc } from "./groups";
import { flag } from "./values";

export const signInVariables = {
  AUTH_CREDENTIALS: flag.meta(doc("sign-in", "`1` turns on the email and password sign-in.", "`1` in local mode")),
  AUTH_OIDC_ISSUER: z
    .url()
    .optional()
    .meta(
      doc(
        "sign-in",
        "The company's identity provider (Okta, Entra ID, Google Workspace, Keycloak…), with `AUTH_OIDC_ID` and `AUTH_OIDC_SECRET`. Its redirect URI is `APP_URL/api/auth/callback/oidc`.",
      ),
    ),
  AUTH_OIDC_ID: z.string().min(1).optional().meta(doc("sign-in", "The OIDC client id.")),
  AUTH_OIDC_SECRET: z.string().min(1).optional().meta(doc("sign-in", "The OIDC client secret.")),
  AUTH_OIDC_NAME: z.string().min(1).default("Single sign-on").meta(doc("sign-in", "The sign-in button's label.")),
  AUTH_OIDC_TRUST_EMAILS: flag.meta(
    doc("sign-in", "`1` links a first OIDC sign-in to an existing user by email even without `email_verified` (Entra ID does not send it)."),
  ),
  AUTH_OIDC_SCOPES: z
    .string()
    .regex(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/, "must be scope names separated by single spaces")
    .default("openid email profile")
    .meta(doc("sign-in", "The scopes asked of the identity provider. Okta needs `groups` added for the groups claim.")),
  AUTH_OIDC_PROFILE_SOURCE: z
    .enum(["id_token", "userinfo"])
    .default("id_token")
    .meta(
      doc(
        "sign-in",
        "Where a sign-in's email, name and groups are read: the ID token, or the provider's userinfo endpoint (for providers that put groups only there).",
      ),
    ),
  OIDC_GROUPS_CLAIM: z
    .string()
    .regex(/^[A-Za-z0-9_:./-]{1,200}$/, "must be a claim name")
    .default("groups")
    .meta(
      doc(
        "sign-in",
        "The claim that lists a person's directory groups at each OIDC sign-in; their roles follow the group mappings (`/admin/groups`). A claim that is missing means no groups.",
      ),
    ),
};
