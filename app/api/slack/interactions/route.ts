// POST /api/slack/interactions: button presses and dialogs from the Slack
// app (docs/slack.md). The signature check, the identity of the Slack user
// and the vote all happen in lib/slack/receive-interaction.ts.
import { receiveInteraction } from "@/lib/slack/receive-interaction";
import { respondWith } from "@/lib/http/respond";
import { loggedRoute } from "@/lib/http/logged-route";

export const dynamic = "force-dynamic";

export const POST = loggedRoute("slack-interactions", async (req: Request) => {
  const r = await receiveInteraction({ headers: req.headers, body: req.body });
  return r.body === undefined ? new Response(null, { status: r.status }) : respondWith(r);
});
