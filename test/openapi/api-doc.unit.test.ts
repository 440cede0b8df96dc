// docs/api.md and the OpenAPI document describe the same API: the same routes
// (method and path), the same success statuses and error codes per route, the
// same callbacks and the same error codes with the same statuses. And every
// route file under app/ is documented, so a new route cannot ship unnoticed.
//
// The format read from docs/api.md (stated at its top as well):
// - "## Routes": a table | Method | Path | Authentication | Success | Error codes |
//   with one row per operation; Success lists statuses ("201, 200"), Error
//   codes lists `code`s separated by commas, or "—" for none.
// - "## Callbacks": a table whose first column is the `event` name.
// - "## Error codes": a table | Code | Status | Meaning |: exactly the codes the
//   OpenAPI document names.
// - "## Errors any route may answer": the same columns, codes outside it.
// - "## Other endpoints": | Method | Path | For |, routes outside the OpenAPI
//   document (health, readiness, the web console's own routes).
// Paths name their parameters in braces; `*` stands for a catch-all segment.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "@/lib/openapi/build-openapi";
import { ERROR_STATUS, type ErrorCode } from "@/lib/errors";

const root = fileURLToPath(new URL("../..", import.meta.url));
const apiDoc = readFileSync(join(root, "docs", "api.md"), "utf8");
const openApi = buildOpenApi("http://localhost:3000");

type Row = Record<string, string>;

/** The first Markdown table after the heading `## {title}`, as rows keyed by lower-cased column name. */
function tableUnder(title: string): Row[] {
  const lines = apiDoc.split("\n");
  const at = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (at < 0) throw new Error(`docs/api.md has no "## ${title}" heading`);
  let i = at + 1;
  while (i < lines.length && !lines[i]!.trim().startsWith("|")) {
    if (lines[i]!.startsWith("## ")) throw new Error(`docs/api.md: no table under "## ${title}"`);
    i++;
  }
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, "")
      .split("|")
      .map((c) => c.trim());
  const header = cells(lines[i]!).map((h) => h.toLowerCase());
  const rows: Row[] = [];
  for (i += 2; i < lines.length && lines[i]!.trim().startsWith("|"); i++) {
    const values = cells(lines[i]!);
    rows.push(Object.fromEntries(header.map((h, k) => [h, values[k] ?? ""])));
  }
  if (rows.length === 0) throw new Error(`docs/api.md: the table under "## ${title}" is empty`);
  return rows;
}

/** "`a`, `b`" → ["a", "b"]; "—" → []. */
const list = (cell: string) => (cell === "—" || cell === "" ? [] : cell.split(",").map((c) => c.trim().replace(/^`|`$/g, "")));

/** A path with its parameter names dropped, so `{id}`, `{approval_id}` and `[id]` compare equal. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}");

type Operation = { responses: Record<string, { content?: { "application/json"?: { schema?: { properties?: { error?: { enum?: string[] } } } } } }> };

/** The OpenAPI document's operations as "METHOD path" → its success statuses and error codes. */
function openApiOperations() {
  const ops = new Map<string, { success: string[]; codes: string[] }>();
  for (const [path, item] of Object.entries(openApi.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) {
      const success = Object.keys(op.responses).filter((s) => s.startsWith("2"));
      const codes = Object.values(op.responses).flatMap((r) => r.content?.["application/json"]?.schema?.properties?.error?.enum ?? []);
      ops.set(`${method.toUpperCase()} ${path}`, { success, codes });
    }
  }
  return ops;
}

/** Every route.ts under app/, as "METHOD path" with Next's folder syntax turned into the doc's. */
function routeFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const folders = relative(join(root, "app"), dir)
          .split(sep)
          .filter((f) => !/^\(.*\)$/.test(f)); // (groups) add nothing to the URL
        const path = "/" + folders.map((f) => (/^\[\.\.\..+\]$/.test(f) ? "*" : f.replace(/^\[(.+)\]$/, "{$1}"))).join("/");
        const source = readFileSync(full, "utf8");
        const methods = [...source.matchAll(/export\s+(?:const|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]!);
        for (const method of methods) found.push(`${method} ${shape(path)}`);
      }
    }
  };
  walk(join(root, "app"));
  return found.sort();
}

describe("docs/api.md and the OpenAPI document", () => {
  const routes = tableUnder("Routes");
  const ops = openApiOperations();

  it("list the same routes", () => {
    const documented = routes.map((r) => `${list(r.method!).join()} ${list(r.path!).join()}`).sort();
    expect(documented).toEqual([...ops.keys()].sort());
  });

  it("give each route the same success statuses and the same error codes", () => {
    for (const r of routes) {
      const key = `${list(r.method!).join()} ${list(r.path!).join()}`;
      const op = ops.get(key);
      expect(op, key).toBeDefined();
      expect(list(r.success!).sort(), `${key}: success statuses`).toEqual([...op!.success].sort());
      expect(list(r["error codes"]!).sort(), `${key}: error codes`).toEqual([...op!.codes].sort());
    }
  });

  it("list the same callbacks", () => {
    const documented = tableUnder("Callbacks").map((r) => list(r.event!).join());
    expect(documented.sort()).toEqual(Object.keys(openApi.webhooks).sort());
  });

  it("list the same error codes, each with the status the app answers it with", () => {
    const table = tableUnder("Error codes");
    const documented = table.map((r) => list(r.code!).join()).sort();
    const named = [...new Set([...ops.values()].flatMap((o) => o.codes))].sort();
    expect(documented).toEqual(named);
    for (const r of table) {
      const code = list(r.code!).join() as ErrorCode;
      expect(Number(r.status), code).toBe(ERROR_STATUS[code]);
      // …and the OpenAPI document names it under that status wherever it names it.
      for (const [path, item] of Object.entries(openApi.paths as Record<string, Record<string, Operation>>)) {
        for (const op of Object.values(item)) {
          for (const [status, response] of Object.entries(op.responses)) {
            if (response.content?.["application/json"]?.schema?.properties?.error?.enum?.includes(code))
              expect(status, `${code} on ${path}`).toBe(r.status);
          }
        }
      }
    }
  });

  it("document the errors any route may answer with the statuses the app uses", () => {
    const named = new Set([...ops.values()].flatMap((o) => o.codes));
    for (const r of tableUnder("Errors any route may answer")) {
      const code = list(r.code!).join() as ErrorCode;
      expect(ERROR_STATUS[code], code).toBe(Number(r.status));
      expect(named.has(code), `${code} is in the OpenAPI document: move it to "Error codes"`).toBe(false);
    }
  });
});

describe("docs/api.md and the route files", () => {
  it("document every route under app/, in Routes or Other endpoints, and no route that does not exist", () => {
    const documented = [...tableUnder("Routes"), ...tableUnder("Other endpoints")]
      .flatMap((r) => list(r.method!).map((m) => `${m} ${shape(list(r.path!).join())}`))
      .sort();
    expect(documented).toEqual(routeFiles());
  });
});
