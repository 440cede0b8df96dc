import "server-only";
import { z } from "zod";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { newId } from "../ids";
import { hashPassword } from "../auth/password";
import { emailSchema, passwordSchema, roleSchema } from "./schemas";

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

export async function addUser(input: z.input<typeof addUserInput>, actor: Actor) {
  const { email, name, password, roles } = addUserInput.parse(input);
  const passwordHash = password ? await hashPassword(password) : null;
  const uniqueRoles = [...new Set(roles)].sort();
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "user.created", actor, data: { user: email } });
    if (await tx.user.findUnique({ where: { email }, select: { id: true } })) {
      throw new AppError("conflict", "a user with that email exists");
    }
    const user = await tx.user.create({
      data: { id: newId("usr"), email, name: name ?? null, passwordHash },
    });
    for (const role of uniqueRoles) {
      await tx.userRole.create({ data: { userId: user.id, role, grantedBy: actor } });
      recordAudit({ type: "role.granted", actor, data: { user: email, role, selfGrant: false } });
    }
    return { id: user.id, email, name: user.name, roles: uniqueRoles };
  });
}
