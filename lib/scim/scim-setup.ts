// The SCIM library's one-time set-up: the resource types we serve (Users
// with the optional enterprise extension Entra ID sends, and Groups), where
// they live, and what the service provider supports, which is what
// /ServiceProviderConfig, /ResourceTypes and /Schemas describe.
import "server-only";
import SCIMMY from "scimmy";
import { env } from "../env";

/** Most resources one list answer holds (a larger `count` is lowered to it). */
export const MAX_RESULTS = 200;

let done = false;

/** Sets the library up for this server's base URL; returns the SCIM base URL. */
export function scimBase(): string {
  const base = `${env().appUrl}/scim/v2`;
  if (!done) {
    SCIMMY.Resources.declare(SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false));
    SCIMMY.Resources.declare(SCIMMY.Resources.Group);
    for (const r of [
      SCIMMY.Resources.User,
      SCIMMY.Resources.Group,
      SCIMMY.Resources.Schema,
      SCIMMY.Resources.ResourceType,
      SCIMMY.Resources.ServiceProviderConfig,
    ]) {
      r.basepath(base);
    }
    SCIMMY.Config.set({
      patch: true,
      filter: { supported: true, maxResults: MAX_RESULTS },
      bulk: false,
      changePassword: false,
      sort: false,
      etag: false,
      authenticationSchemes: [
        {
          type: "oauthbearertoken",
          name: "Bearer token",
          description: "A token made with `npm run admin -- scim token create`, sent as Authorization: Bearer <token>.",
          primary: true,
        },
      ],
    });
    done = true;
  }
  return base;
}

/** The attributes a client asked for (`attributes`) or not (`excludedAttributes`), as the library's output filter. */
export function attributeFilter(params: URLSearchParams): InstanceType<typeof SCIMMY.Types.Filter> | undefined {
  const only = params.get("attributes");
  const excluded = params.get("excludedAttributes");
  const list = (text: string) =>
    text
      .split(",")
      .map((a) => a.trim())
      .filter((a) => /^[A-Za-z][\w.:-]{0,200}$/.test(a));
  try {
    if (only !== null && list(only).length)
      return new SCIMMY.Types.Filter(
        list(only)
          .map((a) => `${a} pr`)
          .join(" and "),
      );
    if (excluded !== null && list(excluded).length)
      return new SCIMMY.Types.Filter(
        list(excluded)
          .map((a) => `${a} np`)
          .join(" and "),
      );
  } catch {
    return undefined;
  }
  return undefined;
}

/** A resource as the library writes it out, always with its schemas and id (RFC 7644 §3.9). */
export function shaped(resource: object, full: { schemas: string[]; id: string }): Record<string, unknown> {
  const picked = Object.fromEntries(Object.entries(resource).filter(([, v]) => v !== undefined));
  return { ...picked, schemas: full.schemas, id: full.id };
}
