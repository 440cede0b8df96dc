export function createMigrationsTableSql(provider: "sqlite" | "postgresql"): string;
