/** The security headers every response carries. */
export const SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }>;
