// visibleTo()'s rule (visibility.ts) as a SQL condition on a request row `a`,
// for the queue's sections. Checked against visibleTo() on generated users,
// requests and votes by test/reviews/rules-in-sql.suite.ts. And
// holdsRedactedValues() as a SQL expression, for pages that list requests
// without reading their arguments (test/runs/run-page.suite.ts).
import "server-only";
import { Prisma } from "../db/client";
import { dialect } from "../queue/dialect";
import { heldRoles, requestedBySql, type SqlViewer } from "./eligibility-sql";
import { env } from "../env";
import { REDACTION_TAG_START, seesEveryRequest } from "./visibility";

/** "The viewer may see a.*": admin or auditor, or one of its required roles, or its requester. */
export function visibleSql(v: SqlViewer): Prisma.Sql {
  if (v.disabledAt) return Prisma.sql`(1 = 0)`;
  if (seesEveryRequest(v)) return Prisma.sql`(1 = 1)`;
  const roles = heldRoles(v);
  return roles.length ? Prisma.sql`(${dialect().holdsAnyRole(roles)} OR ${requestedBySql(v)})` : requestedBySql(v);
}

/** holdsRedactedValues(a.redacted_args) as 1 or 0: the same substring test, done by the database (a scan of the whole text: ask it only where digestDependsOnArgs()). */
export function holdsRedactedSql(): Prisma.Sql {
  const fn = env().databaseProvider === "postgresql" ? "strpos" : "instr";
  return Prisma.sql`(CASE WHEN ${Prisma.raw(fn)}(a.redacted_args, ${REDACTION_TAG_START}) > 0 THEN 1 ELSE 0 END)`;
}
