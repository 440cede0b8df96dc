// A list of strings stored as JSON text (a request's required roles, who
// decided it): anything that is not a string is left out. Pure.
export function parseStringList(json: string): string[] {
  const v: unknown = JSON.parse(json);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
