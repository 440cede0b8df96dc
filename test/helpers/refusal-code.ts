// What a domain call came to, as one comparable string: "accepted", or the
// refusal's error code (an AppError's code, else the error's name, such as
// "ZodError"), so a test can assert `expect(await refusal(call)).toBe("FORBIDDEN")`.

export const refusal = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "accepted",
    (e: { code?: string; name?: string }) => e.code ?? e.name ?? "error",
  );

/** The same, with the refusal's message: `{ code, message }`, or "accepted". */
export const refusalWithMessage = (p: Promise<unknown>) =>
  p.then(
    () => "accepted" as const,
    (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
  );
