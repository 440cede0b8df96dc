// SCIM's error schema (RFC 7644 §3.12) for every refusal. The SCIM library
// (scimmy) throws its own SCIMError; ours are the same class, so one mapping
// turns either into the response. Messages name attributes and rules, never
// the values a client sent.
import SCIMMY from "scimmy";

export const ScimError = SCIMMY.Types.Error;
export type ScimError = InstanceType<typeof SCIMMY.Types.Error>;

export const scimError = (status: number, scimType: string | null, detail: string): ScimError =>
  new SCIMMY.Types.Error(status, scimType as string, detail);

export const isScimError = (e: unknown): e is ScimError => e instanceof SCIMMY.Types.Error;

/** The body of a SCIM error response. */
export function scimErrorBody(e: ScimError): Record<string, unknown> {
  return { ...new SCIMMY.Messages.ErrorResponse(e) };
}
