"use server";
// Sign-in and sign-out actions. Thin: parse, check origin, hand to Auth.js.
import { AuthError, CredentialsSignin } from "next-auth";
import { redirect } from "next/navigation";
import { signIn, signOut } from "@/lib/auth/nextauth";
import { assertSameOrigin } from "@/lib/auth/guards";

function safeNext(value: FormDataEntryValue | null): string {
  // Only same-site paths: never an open redirect.
  return typeof value === "string" && /^\/(?!\/)[\w\-./?=&%]*$/.test(value) ? value : "/approvals";
}

export async function signInWithPassword(formData: FormData): Promise<void> {
  await assertSameOrigin();
  const next = safeNext(formData.get("next"));
  try {
    await signIn("credentials", {
      email: String(formData.get("email") ?? ""),
      password: String(formData.get("password") ?? ""),
      redirectTo: next,
    });
  } catch (e) {
    // Success is a redirect thrown by signIn; only auth failures land here.
    if (e instanceof AuthError) {
      const limited = e instanceof CredentialsSignin && e.code === "rate-limited";
      redirect(`/signin?error=${limited ? "rate-limited" : "credentials"}&next=${encodeURIComponent(next)}`);
    }
    throw e;
  }
}

export async function signInWithOidc(formData: FormData): Promise<void> {
  await assertSameOrigin();
  await signIn("oidc", { redirectTo: safeNext(formData.get("next")) });
}

export async function signOutAction(): Promise<void> {
  await assertSameOrigin();
  await signOut({ redirectTo: "/signin" });
}
