// Which role rows are in force at a time, as a Prisma filter (lib/users/roles.ts re-exports it).

/** Role rows in force at `now` (a Prisma filter): held until revoked, or time-bound and not yet ended. */
export const inForceAt = (now: Date) => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });
