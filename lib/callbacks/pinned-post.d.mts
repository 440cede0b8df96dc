import type { ResolvedAddress } from "./callback-target";

/** Sends the request to the checked addresses only, on a kept-alive connection of the same name and addresses; resolves with the status code. */
export declare function pinnedPost(
  url: URL,
  hostname: string,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string | Uint8Array,
  signal: AbortSignal,
): Promise<number>;

/** Closes every pooled connection (the sending thread's end). */
export declare function closePinnedConnections(): void;
