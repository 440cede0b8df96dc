// Credentials sign-in for the integration tests, through the same steps as
// the bench (scripts/http/credentials-sign-in.mjs).
import { credentialsSignIn } from "../../scripts/http/credentials-sign-in.mjs";

export { credentialsSignIn, type SignInAttempt } from "../../scripts/http/credentials-sign-in.mjs";

/** Signs in and returns the session cookie ("name=value"), or throws. */
export async function signInWithPassword(base: string, email: string, password: string): Promise<string> {
  const r = await credentialsSignIn(base, email, password);
  if (!r.session) throw new Error(`sign-in failed: ${r.location}`);
  return r.session;
}
