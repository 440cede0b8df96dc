// Each sink's lag for /admin/outbox: how many events it is behind the chain,
// when it last accepted a batch, and the class of its last failure (cleared
// by the next batch it accepts). Sinks that are configured are listed even
// before their first pass; a sink with a row that is no longer configured is
// listed as such (its cursor stays, should it come back).
import "server-only";
import { direct, type Sql } from "../db/sql";
import { headSeq } from "./read-events";
import { sinkRows } from "./sink-state";
import type { SinkName } from "./sink";

export type SinkLag = {
  name: string;
  configured: boolean;
  behind: number;
  sentSeq: number;
  lastSentAt: Date | null;
  lastErrorClass: string | null;
  lastErrorAt: Date | null;
};

export async function auditSinkLag(configured: readonly SinkName[], sql: Sql = direct()): Promise<{ head: number; sinks: SinkLag[] }> {
  const [head, rows] = await Promise.all([headSeq(sql), sinkRows(sql)]);
  const names = [...new Set([...configured, ...rows.map((r) => r.name)])].sort();
  const sinks = names.map((name) => {
    const row = rows.find((r) => r.name === name);
    const sentSeq = row?.sentSeq ?? 0;
    return {
      name,
      configured: (configured as readonly string[]).includes(name),
      behind: Math.max(0, head - sentSeq),
      sentSeq,
      lastSentAt: row?.lastSentAt ?? null,
      lastErrorClass: row?.lastErrorClass ?? null,
      lastErrorAt: row?.lastErrorAt ?? null,
    };
  });
  return { head, sinks };
}

/** The page's view: the sinks this instance's environment configures, and any that have a cursor. */
export async function auditStreamView(): Promise<{ head: number; sinks: SinkLag[] }> {
  const { configuredSinks } = await import("./stream-pass");
  return auditSinkLag(configuredSinks().map((s) => s.name));
}
