// Admin-defined redaction patterns (docs/operations.md): validated when added,
// applied to every request that arrives afterwards.
import "server-only";
import { type Sql } from "../db/sql";
import { db } from "../db/client";
import { inTransaction } from "../db/transaction";
import { holdAuditHead, recordAudit } from "../audit/append-event";
import type { Actor } from "../audit/events";
import { AppError } from "../errors";
import { compileRedactor, validateCustomPattern, type Redactor } from "../redaction";

export async function addRedactionRule(input: { name: string; pattern: string }, actor: Actor) {
  const check = validateCustomPattern(input.name, input.pattern);
  if (!check.ok) throw new AppError("invalid-request", check.message);
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "redaction.changed", actor, data: { rule: input.name, change: "added" } });
    if (await tx.redactionRule.findUnique({ where: { name: input.name } })) {
      throw new AppError("conflict", `a rule named ${input.name} exists`);
    }
    await tx.redactionRule.create({ data: { name: input.name, pattern: input.pattern, createdBy: actor } });
    return { name: input.name, pattern: input.pattern };
  });
}

export async function removeRedactionRule(name: string, actor: Actor) {
  return inTransaction(async (tx) => {
    await holdAuditHead(tx);
    recordAudit({ type: "redaction.changed", actor, data: { rule: name, change: "removed" } });
    const { count } = await tx.redactionRule.deleteMany({ where: { name } });
    if (count === 0) throw new AppError("not-found", `no rule named ${name}`);
    return { name, removed: true };
  });
}

export async function listRedactionRules() {
  const rules = await db().redactionRule.findMany({ orderBy: { name: "asc" }, select: { name: true, pattern: true, createdAt: true } });
  return { rules: rules.map((r) => ({ name: r.name, pattern: r.pattern, created_at: r.createdAt.toISOString() })) };
}

// Compiling is the costly part; recompile only when the rule set changes.
let cache: { key: string; redactor: Redactor } | undefined;

export async function loadRedactor(sql: Sql): Promise<Redactor> {
  const rules = await sql.all<{ name: string; pattern: string }>("SELECT name, pattern FROM redaction_rules ORDER BY name ASC");
  const key = JSON.stringify(rules);
  if (cache?.key !== key) cache = { key, redactor: compileRedactor(rules) };
  return cache.redactor;
}
