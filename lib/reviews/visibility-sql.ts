// visibleTo()'s rule (visibility.ts) as a SQL condition on a request row `a`,
// for the queue's sections. Checked against visibleTo() on generated users,
// requests and votes by test/reviews/rules-in-sql.suite.ts.
import "server-only";
import { Prisma } from "../db/client";
import { dialect } from "../queue/dialect";
import { heldRoles, requestedBySql, type SqlViewer } from "./eligibility-sql";
import { seesEveryRequest } from "./visibility";

/** "The viewer may see a.*": admin or auditor, or one of its required roles, or its requester. */
export function visibleSql(v: SqlViewer): Prisma.Sql {
  if (v.disabledAt) return Prisma.sql`(1 = 0)`;
  if (seesEveryRequest(v)) return Prisma.sql`(1 = 1)`;
  const roles = heldRoles(v);
  return roles.length ? Prisma.sql`(${dialect().holdsAnyRole(roles)} OR ${requestedBySql(v)})` : requestedBySql(v);
}
