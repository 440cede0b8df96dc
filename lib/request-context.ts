// The request id every log line of one request carries. It comes from a
// trusted front proxy's X-Request-Id when that is a plain token (so logs can
// be joined across the proxy), otherwise it is generated here; anything else
// in that header is ignored, never copied into logs.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

type RequestContext = { requestId: string };
const storage = new AsyncLocalStorage<RequestContext>();

const INBOUND_ID = /^[A-Za-z0-9._:-]{8,100}$/;

export function requestIdFrom(headers: Headers): string {
  const inbound = headers.get("x-request-id");
  return inbound && INBOUND_ID.test(inbound) ? inbound : `req_${randomUUID()}`;
}

export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
