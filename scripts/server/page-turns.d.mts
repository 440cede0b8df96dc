import type { IncomingMessage, ServerResponse } from "node:http";

/** Whether a request renders a page (a GET or HEAD that is not an API route, an asset or a file). */
export function isPageRender(method: string | undefined, url: string | undefined): boolean;

/** At most `limit` page renders at once, the others in arrival order; API requests never wait. */
export function pageTurns(options: { limit: number; maxHoldMs?: number; maxWaiting?: number; maxWaitMs?: number }): {
  admit: (req: IncomingMessage, res: ServerResponse, render: () => void) => void;
  running: () => number;
  waiting: () => number;
};
