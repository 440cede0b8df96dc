export type SignInAttempt = {
  ok: boolean;
  location: string;
  /** Every Set-Cookie of the two responses (CSRF, then callback). */
  setCookies: string[];
  /** The session cookie as "name=value", or null when sign-in failed. */
  session: string | null;
};

export function credentialsSignIn(base: string, email: string, password: string, headers?: Record<string, string>): Promise<SignInAttempt>;
