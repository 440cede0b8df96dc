// Guard for executor route handlers: bearer token → service, or 401. The
// handler receives the authenticated service and must scope every query to it.
import "server-only";
import { AppError } from "../errors";
import { authenticateServiceToken, type AuthenticatedService } from "../services/authenticate-service";
import { errorResponse, readBodyLimited } from "./respond";
import { parseJsonBody } from "./parse-json";

type Ctx<P> = { params: Promise<P> };

export function withService<P>(
  handler: (req: Request, service: AuthenticatedService, params: P) => Promise<Response>,
): (req: Request, ctx: Ctx<P>) => Promise<Response> {
  return async (req, ctx) => {
    try {
      const service = await authenticateServiceToken(req.headers.get("authorization"));
      if (!service) throw new AppError("unauthorized");
      return await handler(req, service, await ctx.params);
    } catch (e) {
      return errorResponse(e, { route: new URL(req.url).pathname.replace(/apr_[a-z0-9]+/, ":id") });
    }
  };
}

/** A small JSON body for executor calls; larger bodies are refused unread. */
export async function readJson(req: Request, limit = 16 * 1024): Promise<unknown> {
  const body = await readBodyLimited(req, limit);
  if (body === "too-large") throw new AppError("too-large");
  return parseJsonBody(body);
}
