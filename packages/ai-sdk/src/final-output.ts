/**
 * The wrapper answers with a promise, so a streaming tool body (one that
 * returns an async iterable of preliminary outputs) is drained here and its
 * last output becomes the result, as the SDK itself treats the last one.
 */
export async function finalOutput<OUTPUT>(result: AsyncIterable<OUTPUT> | PromiseLike<OUTPUT> | OUTPUT): Promise<OUTPUT> {
  if (!isAsyncIterable(result)) return await result;
  let last: OUTPUT | undefined;
  for await (const output of result) last = output;
  return last as OUTPUT;
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return value != null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function";
}
