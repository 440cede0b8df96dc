// POLICY_FILE (docs/architecture.md): policies as YAML or JSON, validated with the
// same schema as the CLI and the admin page, and optionally a `groups` section
// mapping directory groups to roles (docs/identity.md). A file that does not validate
// is refused as a whole, with a message naming the bad entry, so the server
// never starts on half a policy set (fail closed). Pure apart from reading
// the file: `policy check` runs it offline, without a database.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { policyInputSchema, type PolicyDefinition } from "./schemas";
import { groupNameSchema, type GroupMapping } from "../groups/schemas";
import { roleSchema } from "../users/schemas";

export class PolicyFileError extends Error {
  override name = "PolicyFileError";
}

export type PolicyFile = { path: string; digest: string; policies: PolicyDefinition[]; groups: GroupMapping[] };

const fileShape = z.union([z.array(z.unknown()), z.object({ policies: z.array(z.unknown()), groups: z.array(z.unknown()).optional() }).strict()]);

/** One entry of the `groups` section: a group and the roles its members hold. */
const groupEntrySchema = z
  .object({
    group: groupNameSchema,
    roles: z.array(roleSchema).min(1, "must name at least one role").max(50, "must name at most 50 roles"),
  })
  .strict();

function entryLabel(index: number, entry: unknown): string {
  const name = typeof entry === "object" && entry !== null && "name" in entry ? (entry as { name: unknown }).name : undefined;
  return typeof name === "string" && name.length > 0 && name.length <= 100
    ? `entry ${index + 1} (name ${JSON.stringify(name)})`
    : `entry ${index + 1}`;
}

/** Parses and validates the text of a policy file; `label` names it in messages. */
export function parsePolicyFile(text: string, label: string): PolicyDefinition[] {
  return parsePolicyFileDocument(text, label).policies;
}

/** The whole file: its policies and its group mappings, each validated. */
export function parsePolicyFileDocument(text: string, label: string): { policies: PolicyDefinition[]; groups: GroupMapping[] } {
  const fail = (message: string): never => {
    throw new PolicyFileError(`policy file ${label}: ${message}`);
  };
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: true, uniqueKeys: true });
  } catch (e) {
    fail(`not valid YAML or JSON: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
  if (doc === null || doc === undefined) fail("is empty: expected a list of policies, or an object with a `policies` list");
  const shape = fileShape.safeParse(doc);
  if (!shape.success) fail("expected a list of policies, or an object with a `policies` list and optionally a `groups` list");
  const entries = Array.isArray(shape.data) ? shape.data : shape.data!.policies;
  const groupEntries = Array.isArray(shape.data) ? [] : (shape.data!.groups ?? []);

  const seen = new Map<string, number>();
  const policies = entries.map((entry, index) => {
    const parsed = policyInputSchema.safeParse(entry);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "entry"}: ${i.message}`);
      fail(`${entryLabel(index, entry)} is not valid: ${issues.join("; ")}`);
    }
    const policy = parsed.data!;
    const first = seen.get(policy.name);
    if (first !== undefined) fail(`${entryLabel(index, entry)} is not valid: name: repeats entry ${first + 1}`);
    seen.set(policy.name, index);
    return policy;
  });

  const seenGroups = new Map<string, number>();
  const groups = groupEntries.flatMap((entry, index) => {
    const parsed = groupEntrySchema.safeParse(entry);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "entry"}: ${i.message}`);
      fail(`groups entry ${index + 1} is not valid: ${issues.join("; ")}`);
    }
    const { group, roles } = parsed.data!;
    const first = seenGroups.get(group);
    if (first !== undefined) fail(`groups entry ${index + 1} is not valid: group: repeats entry ${first + 1}`);
    seenGroups.set(group, index);
    return [...new Set(roles)].map((role) => ({ group, role }));
  });
  return { policies, groups };
}

/** Reads and validates POLICY_FILE (or the file given to `policy check`). */
export function readPolicyFile(path: string): PolicyFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : "error";
    throw new PolicyFileError(`policy file ${path}: cannot be read (${code})`);
  }
  return {
    path,
    digest: "sha256:" + createHash("sha256").update(text, "utf8").digest("hex"),
    ...parsePolicyFileDocument(text, path),
  };
}
