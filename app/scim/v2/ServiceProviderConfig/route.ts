import { loggedRoute } from "@/lib/http/logged-route";
import { withScim } from "@/lib/auth/guards";
import { scimJson } from "@/lib/scim/scim-http";
import { serviceProviderConfig } from "@/lib/scim/scim-discovery";

export const dynamic = "force-dynamic";

export const GET = loggedRoute(
  "scim.config",
  withScim(async () => scimJson(await serviceProviderConfig())),
);
