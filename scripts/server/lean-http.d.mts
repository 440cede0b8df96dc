import type { IncomingMessage, ServerResponse } from "node:http";

/** The published handler for this request's method and path, or null: Next.js serves it. */
export function leanHandler(req: IncomingMessage): ((req: Request) => Promise<Response>) | null;

/** Serves one request with `handler`: the Node request as a standard Request, its Response written back. Never rejects (a failure is a 500). */
export function serveLean(handler: (req: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse): Promise<void>;
