// First sign-in through the company's identity provider: link the identity
// (issuer + subject) to a user, creating one with no roles; an admin grants
// roles later. A known email links to the existing user only when the
// provider says the email is verified (or AUTH_OIDC_TRUST_EMAILS=1, for
// providers such as Entra ID that do not send email_verified). At every
// sign-in the groups claim (OIDC_GROUPS_CLAIM) sets the person's sign-in
// memberships, and the roles mapped to those groups follow (lib/groups).
import "server-only";
import { z } from "zod";
import { inTransaction, type Unit } from "../db/transaction";
import { env } from "../env";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import { newId } from "../ids";
import { emailSchema } from "../users/schemas";
import { applySignInGroups, groupsFromClaim } from "../groups/sign-in-groups";

export const oidcProfileSchema = z.object({
  sub: z.string().min(1).max(255),
  email: emailSchema,
  email_verified: z.boolean().optional(),
  name: z.string().max(200).nullish(),
});

export type LinkResult = { userId: string; email: string; disabled: boolean } | { refused: "email-unverified" | "groups-claim-invalid" };

export async function linkOidcIdentity(issuer: string, rawProfile: unknown): Promise<LinkResult | null> {
  const parsed = oidcProfileSchema.safeParse(rawProfile);
  if (!parsed.success) return null;
  const profile = parsed.data;
  // An unreadable claim is not "no groups": that would silently drop roles.
  const groups = groupsFromClaim((rawProfile as Record<string, unknown>)[env().OIDC_GROUPS_CLAIM]);
  if (groups === null) return { refused: "groups-claim-invalid" };
  return inTransaction(async (tx) => {
    // One writer at a time with mapping and SCIM changes, so a sign-in never works from memberships or mappings another just changed.
    await holdAuditHead(tx);
    const linked = await findOrLinkUser(tx, issuer, profile);
    if ("refused" in linked || linked.disabled) return linked;
    await applySignInGroups(tx, linked.userId, linked.email, groups);
    return linked;
  });
}

async function findOrLinkUser(tx: Unit, issuer: string, profile: z.infer<typeof oidcProfileSchema>): Promise<LinkResult> {
  const identity = await tx.identity.findUnique({
    where: { issuer_subject: { issuer, subject: profile.sub } },
    select: { user: { select: { id: true, email: true, disabledAt: true } } },
  });
  if (identity) return { userId: identity.user.id, email: identity.user.email, disabled: identity.user.disabledAt != null };

  const existing = await tx.user.findUnique({ where: { email: profile.email } });
  // An unverified (or unstated) email must not take over an existing account,
  // unless the operator declares this provider's emails trustworthy.
  if (existing && profile.email_verified !== true && !env().AUTH_OIDC_TRUST_EMAILS) {
    return { refused: "email-unverified" as const };
  }
  if (!existing) {
    // The head before the new user's row, as addUser takes them (no lock-order inversion with it).
    await holdAuditHead(tx);
    recordAudit({ type: "user.created", actor: "system", data: { user: profile.email, issuer } });
  }
  const user = existing ?? (await tx.user.create({ data: { id: newId("usr"), email: profile.email, name: profile.name ?? null } }));
  await tx.identity.create({
    data: { id: newId("idn"), userId: user.id, issuer, subject: profile.sub, email: profile.email },
  });
  return { userId: user.id, email: user.email, disabled: user.disabledAt != null };
}
