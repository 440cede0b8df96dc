// A local stand-in for the Slack Web API, as the official client
// (@slack/web-api) calls it: POST {base}/{method}, a bearer token, form- or
// JSON-encoded arguments. It checks the token, records every call, and
// answers with the shapes Slack documents for the methods Countersign uses
// (chat.postMessage, chat.update, chat.postEphemeral, views.open,
// users.info, users.lookupByEmail). `rateLimit(method, n, seconds)` makes
// the next n calls of a method answer 429 with Retry-After, as Slack does.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A Slack user as users.info describes them. `confirmed`: is_email_confirmed
 * (true unless given; "absent" leaves the field out). `teamId`: the
 * workspace, T0TEST unless given.
 */
export type SlackUser = { id: string; email: string; confirmed?: boolean | "absent"; teamId?: string; deleted?: boolean; bot?: boolean };
export type SlackCall = { method: string; at: number; args: Record<string, unknown> };
export type PostedMessage = { channel: string; ts: string; text: string; blocks: SlackBlock[]; updates: number };
export type SlackBlock = Record<string, unknown> & { type: string };

export type SlackApi = {
  /** What the app's SLACK_API_URL is set to. */
  url: string;
  token: string;
  calls: SlackCall[];
  /** Messages as they stand now (chat.update replaces the blocks), by "channel ts". */
  messages: Map<string, PostedMessage>;
  users: Map<string, SlackUser>;
  /** Calls with a wrong or missing token. */
  unauthorized: number;
  addUser(u: SlackUser): void;
  rateLimit(method: string, times: number, retryAfterSeconds: number): void;
  callsOf(method: string): SlackCall[];
  close(): Promise<void>;
};

let clock = 1_800_000_000;

/** The text of every block, flattened: what a reader of the message sees. */
export function visibleText(blocks: SlackBlock[]): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(blocks);
  return out.join("\n");
}

export async function slackApi(token = "xoxb-test-token"): Promise<SlackApi> {
  const calls: SlackCall[] = [];
  const messages = new Map<string, PostedMessage>();
  const users = new Map<string, SlackUser>();
  const limits = new Map<string, { times: number; seconds: number }>();
  const api = { token, calls, messages, users, unauthorized: 0 } as SlackApi;
  let dmCount = 0;
  const dmChannels = new Map<string, string>();
  const channelIds = new Map<string, string>();

  const answer = (method: string, args: Record<string, unknown>): Record<string, unknown> => {
    switch (method) {
      case "chat.postMessage": {
        let channel = String(args.channel ?? "");
        if (!channel) return { ok: false, error: "channel_not_found" };
        // A channel named by #name is answered with its id, as Slack does.
        if (channel.startsWith("#")) {
          if (!channelIds.has(channel)) channelIds.set(channel, `C${String(channelIds.size + 1).padStart(8, "0")}`);
          channel = channelIds.get(channel)!;
        }
        // A message to a user id goes to the app's direct-message channel with that user.
        if (channel.startsWith("U")) {
          if (!users.has(channel)) return { ok: false, error: "channel_not_found" };
          if (!dmChannels.has(channel)) dmChannels.set(channel, `D${String(++dmCount).padStart(8, "0")}`);
          channel = dmChannels.get(channel)!;
        }
        const ts = `${++clock}.000100`;
        const blocks = parseBlocks(args.blocks);
        messages.set(`${channel} ${ts}`, { channel, ts, text: String(args.text ?? ""), blocks, updates: 0 });
        return { ok: true, channel, ts, message: { type: "message", text: args.text ?? "", ts, blocks } };
      }
      case "chat.update": {
        const key = `${args.channel} ${args.ts}`;
        const m = messages.get(key);
        if (!m) return { ok: false, error: "message_not_found" };
        m.blocks = parseBlocks(args.blocks);
        m.text = String(args.text ?? "");
        m.updates++;
        return { ok: true, channel: m.channel, ts: m.ts, text: m.text };
      }
      case "chat.postEphemeral":
        if (!args.channel || !args.user) return { ok: false, error: "channel_not_found" };
        return { ok: true, message_ts: `${++clock}.000200` };
      case "views.open":
        if (!args.trigger_id) return { ok: false, error: "invalid_trigger_id" };
        return { ok: true, view: { id: `V${++clock}`, ...(parseJson(args.view) as object) } };
      case "users.info": {
        const u = users.get(String(args.user));
        if (!u) return { ok: false, error: "user_not_found" };
        return {
          ok: true,
          user: {
            id: u.id,
            team_id: u.teamId ?? "T0TEST",
            deleted: u.deleted ?? false,
            is_bot: u.bot ?? false,
            ...confirmation(u),
            profile: { email: u.email },
          },
        };
      }
      case "users.lookupByEmail": {
        const email = String(args.email ?? "").toLowerCase();
        const u = [...users.values()].find((x) => x.email.toLowerCase() === email && !x.deleted);
        if (!u) return { ok: false, error: "users_not_found" };
        return { ok: true, user: { id: u.id, team_id: u.teamId ?? "T0TEST", ...confirmation(u), profile: { email: u.email } } };
      }
      default:
        return { ok: false, error: "unknown_method" };
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const method = (req.url ?? "").replace(/^\/api\//, "").split("?")[0]!;
      const raw = Buffer.concat(chunks).toString("utf8");
      const args = (req.headers["content-type"] ?? "").includes("application/json")
        ? (JSON.parse(raw || "{}") as Record<string, unknown>)
        : Object.fromEntries(new URLSearchParams(raw));
      const send = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
      };
      if (req.method !== "POST") return send(405, { ok: false, error: "method_not_allowed" });
      if (req.headers.authorization !== `Bearer ${token}`) {
        api.unauthorized++;
        return send(200, { ok: false, error: "invalid_auth" });
      }
      calls.push({ method, at: Date.now(), args });
      const limit = limits.get(method);
      if (limit && limit.times > 0) {
        limit.times--;
        return send(429, { ok: false, error: "ratelimited" }, { "retry-after": String(limit.seconds) });
      }
      send(200, answer(method, args));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  api.addUser = (u) => users.set(u.id, u);
  api.rateLimit = (method, times, seconds) => limits.set(method, { times, seconds });
  api.callsOf = (method) => calls.filter((c) => c.method === method);
  api.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return api;
}

const confirmation = (u: SlackUser) => (u.confirmed === "absent" ? {} : { is_email_confirmed: u.confirmed ?? true });

function parseJson(v: unknown): unknown {
  if (typeof v !== "string") return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
}

function parseBlocks(v: unknown): SlackBlock[] {
  const b = parseJson(v);
  return Array.isArray(b) ? (b as SlackBlock[]) : [];
}
