// GET /api/approvals/{id}/arguments for the decision page's arguments viewer:
// ?path=3.0&from=50[&part=key] the next page (Show more / Show all), ?q=text
// the matches of a search over all the arguments, ?format=canonical the raw
// canonical JSON. The session is checked by withSession, then who may see the
// request (404 as for an unknown id); the answer is display data from the
// redacted arguments, already revealed (lib/display).
import { withSession } from "@/lib/auth/guards";
import type { CurrentUser } from "@/lib/auth/current-user";
import { argumentsPage, argumentsQuerySchema } from "@/lib/display/argument-pages";
import { AppError } from "@/lib/errors";
import { json } from "@/lib/http/respond";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

async function getArguments(req: Request, user: CurrentUser, { id }: { id: string }): Promise<Response> {
  const query = argumentsQuerySchema.parse(Object.fromEntries(new URL(req.url).searchParams));
  const page = await argumentsPage(user.id, id, query);
  if (!page) throw new AppError("not-found");
  return json(page);
}

export const GET = loggedRoute("approvals.arguments", withSession("queue:view", getArguments));
