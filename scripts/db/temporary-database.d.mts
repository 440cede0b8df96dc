import type { QueryResult } from "pg";

export function quoteIdent(name: string): string;
export function pgQuery(connectionString: string, sql: string): Promise<QueryResult>;
export function pgUrlForDatabase(connectionUrl: string, database: string): string;
export function createTemporaryDatabase(serverUrl: string, prefix: string): Promise<{ name: string; url: string; drop: () => Promise<void> }>;
