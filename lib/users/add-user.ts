import "server-only";
import { z } from "zod";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { newId } from "../ids";
import { hashPassword } from "../auth/password";
import { emailSchema, passwordSchema, roleSchema } from "./schemas";
import { overriddenFor, refuseUnusedRoles } from "../policies/reachability";

export const addUserInput = z.object({
  email: emailSchema,
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^\p{Cc}]*$/u, "must not contain control characters")
    .optional(),
  password: passwordSchema.optional(),
  roles: z.array(roleSchema).max(50).default([]),
});

/**
 * Creates a user, with roles granted by hand. A role no policy uses is
 * refused as a grant of it is (lib/policies/reachability.ts), and nothing is
 * created, unless `anyway`; its role.granted event then records that.
 */
export async function addUser(input: z.input<typeof addUserInput>, actor: Actor, options: { anyway?: boolean } = {}) {
  const { email, name, password, roles } = addUserInput.parse(input);
  const passwordHash = password ? await hashPassword(password) : null;
  const uniqueRoles = [...new Set(roles)].sort();
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    if (await tx.user.findUnique({ where: { email }, select: { id: true } })) {
      throw new AppError("conflict", `a user with the email ${email} already exists`);
    }
    const problems = await refuseUnusedRoles(tx, "user", uniqueRoles, options.anyway);
    recordAudit({ type: "user.created", actor, data: { user: email } });
    const user = await tx.user.create({
      data: { id: newId("usr"), email, name: name ?? null, passwordHash },
    });
    for (const role of uniqueRoles) {
      await tx.userRole.create({ data: { userId: user.id, role, grantedBy: actor } });
      recordAudit({ type: "role.granted", actor, data: { user: email, role, selfGrant: false, ...overriddenFor(role, problems) } });
    }
    return { id: user.id, email, name: user.name, roles: uniqueRoles };
  });
}
