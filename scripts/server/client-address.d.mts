export function normalizeAddress(raw: unknown): string | null;
export function clientAddressFrom(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, hops: number): string;
