import type { ResolvedAddress } from "./callback-target";

/** Sends the request to the checked addresses only; resolves with the status code. The body of the answer is discarded unread. */
export declare function pinnedPost(
  url: URL,
  hostname: string,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string | Uint8Array,
  signal: AbortSignal,
): Promise<number>;
