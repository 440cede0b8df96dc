import { describe, expect, it } from "vitest";
import { Prisma } from "./generated/sqlite/client";
import { TABLES } from "./generated/tables";
import { columnOf, columnsOf, readRow, tableOf } from "./rows";
// @ts-expect-error: a plain .mjs script without types
import { readTables } from "../../scripts/db/schemas.mjs";

describe("model rows on the driver", () => {
  it("knows every model and every scalar field Prisma's client knows, and no other", () => {
    const prismaModels = Object.keys(Prisma.ModelName).sort();
    expect(Object.keys(TABLES).sort()).toEqual(prismaModels);
    for (const model of prismaModels) {
      const fields = Object.keys((Prisma as unknown as Record<string, Record<string, string>>)[`${model}ScalarFieldEnum`]!);
      expect(Object.keys(TABLES[model as keyof typeof TABLES].columns).sort(), model).toEqual(fields.sort());
    }
  });

  it("reads tables, columns, types and optionality from the schema's text", () => {
    const tables = readTables(
      [
        "model Thing {",
        "  id        String    @id",
        "  // a comment with a word Int in it",
        '  doneAt    DateTime? @map("done_at") // trailing comment',
        "  count     Int       @default(0)",
        "  owner     User      @relation(fields: [ownerId], references: [id])",
        '  ownerId   String    @map("owner_id")',
        "  tags      Tag[]",
        "",
        "  @@index([doneAt])",
        '  @@map("things")',
        "}",
        "model Plain {",
        "  key Boolean @id",
        "}",
      ].join("\n") + "\n",
    );
    expect(tables).toEqual({
      Thing: {
        table: "things",
        columns: { id: ["id", "String"], doneAt: ["done_at", "DateTime?"], count: ["count", "Int"], ownerId: ["owner_id", "String"] },
      },
      Plain: { table: "Plain", columns: { key: ["key", "Boolean"] } },
    });
  });

  it("selects every column under its field's name, qualified when asked", () => {
    expect(tableOf("Notification")).toBe("notifications");
    expect(columnOf("Notification", "nextAttemptAt")).toBe("next_attempt_at");
    const list = columnsOf("Notification", "n");
    expect(list).toContain('n.dedupe_key AS "dedupeKey"');
    expect(list).toContain('n.id AS "id"');
    expect(list.split(", ")).toHaveLength(Object.keys(TABLES.Notification.columns).length);
    expect(columnsOf("AuditHead")).toBe('id AS "id", seq AS "seq", hash AS "hash"');
  });

  it("reads a row back as Prisma gives it: timestamps as Dates, 0/1 as booleans, counts as numbers, nulls kept", () => {
    const at = "2026-12-07T10:00:00.123+00:00";
    const row = readRow("Approval", {
      id: "apr_1",
      createdAt: at,
      expiresAt: new Date(at),
      decidedAt: null,
      quorumUnreachable: 1,
      requirePasskey: 0,
      revisionMatch: null,
      quorum: 2n,
      tool: "t",
    });
    expect(row.createdAt).toEqual(new Date(at));
    expect(row.expiresAt).toEqual(new Date(at));
    expect(row.decidedAt).toBeNull();
    expect(row.quorumUnreachable).toBe(true);
    expect(row.requirePasskey).toBe(false);
    expect(row.revisionMatch).toBeNull();
    expect(row.quorum).toBe(2);
    expect(row.tool).toBe("t");
  });
});
