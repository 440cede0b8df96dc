// What the SCIM server says about itself (RFC 7644 §4): its configuration,
// the schemas and the resource types it serves, as the library describes the
// set-up in scim-setup.ts.
import "server-only";
import SCIMMY from "scimmy";
import { scimBase } from "./scim-setup";
import { scimError } from "./scim-error";

const plain = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

export async function serviceProviderConfig() {
  scimBase();
  return plain(await new SCIMMY.Resources.ServiceProviderConfig().read());
}

/** Every schema, or one by its URN (404 if unknown). */
export async function schemas(id?: string) {
  scimBase();
  return plain(await (id === undefined ? new SCIMMY.Resources.Schema() : new SCIMMY.Resources.Schema(id)).read());
}

/** Every resource type, or one by its name (404 if unknown), picked from the list the library describes. */
export async function resourceTypes(id?: string) {
  scimBase();
  const all = plain(await new SCIMMY.Resources.ResourceType().read());
  if (id === undefined) return all;
  const one = (all.Resources as Array<Record<string, unknown>>).find((r) => r.id === id);
  if (!one) throw scimError(404, null, "no such resource type");
  return one;
}
