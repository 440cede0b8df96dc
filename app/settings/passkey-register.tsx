"use client";
// Adding a passkey on /settings (docs/passkeys.md). A user who has passkeys
// first confirms with one of them (startAuthentication over the server's
// "add-passkey" challenge), which the server checks before it hands out the
// creation options; then the browser makes the new one (startRegistration)
// and the server verifies and stores it, checking the confirmation again.
// A user with none goes straight to startRegistration (the server allows it
// only in the first minutes after signing in).
import { useState } from "react";
import { useRouter } from "next/navigation";
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";

type Answer = { ok: boolean; message: string } | null;
type Start =
  { step: "confirm"; options: PublicKeyCredentialRequestOptionsJSON } | { step: "create"; options: PublicKeyCredentialCreationOptionsJSON };

type Props = {
  /** Whether the user has passkeys now: then an existing one confirms first. */
  confirmFirst: boolean;
  options: () => Promise<(Answer & { start?: unknown }) | null>;
  confirm: (proof: unknown) => Promise<(Answer & { options?: unknown }) | null>;
  register: (response: unknown, name: unknown, proof?: unknown) => Promise<Answer>;
};

export function PasskeyRegister({ confirmFirst, options, confirm, register }: Props) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [busy, setBusy] = useState<null | "confirm" | "create">(null);
  const [line, setLine] = useState<{ ok: boolean; text: string } | null>(null);

  async function add() {
    setBusy(confirmFirst ? "confirm" : "create");
    setLine(null);
    const fail = (text: string) => setLine({ ok: false, text });
    try {
      const begun = await options();
      if (!begun?.ok || !begun.start) return fail(begun?.message || "The passkey could not be started.");
      const start = begun.start as Start;
      let creation: PublicKeyCredentialCreationOptionsJSON;
      let proof: unknown;
      if (start.step === "confirm") {
        setBusy("confirm");
        setLine({ ok: true, text: "Confirm with one of your existing passkeys…" });
        try {
          proof = await startAuthentication({ optionsJSON: start.options });
        } catch {
          return fail("No passkey was added: your existing passkey did not confirm (cancelled, or none of your passkeys is available here).");
        }
        const confirmed = await confirm(proof);
        if (!confirmed?.ok || !confirmed.options) return fail(confirmed?.message || "Your existing passkey did not confirm. No passkey was added.");
        creation = confirmed.options as PublicKeyCredentialCreationOptionsJSON;
      } else {
        creation = start.options;
      }
      setBusy("create");
      setLine({ ok: true, text: "Now make the new passkey on your authenticator…" });
      let response;
      try {
        response = await startRegistration({ optionsJSON: creation });
      } catch {
        return fail("No passkey was made (cancelled, this authenticator holds one of your passkeys already, or this browser has no authenticator).");
      }
      const done = await register(response, name.trim() || "Passkey", proof);
      setLine({ ok: Boolean(done?.ok), text: done?.message ?? "Something went wrong." });
      if (done?.ok) {
        setName("");
        router.refresh();
      }
    } finally {
      setBusy(null);
    }
  }

  return (
    <div className="flex flex-col gap-2">
      <label className="flex flex-col gap-1 text-sm font-medium">
        Name for the new passkey
        <input
          name="passkey-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={100}
          placeholder="e.g. Work laptop"
          className="w-full rounded border border-slate-300 px-3 py-2 text-base sm:w-72"
        />
      </label>
      <button
        type="button"
        onClick={() => void add()}
        disabled={busy !== null}
        className="h-11 self-start rounded bg-slate-800 px-4 font-medium text-white hover:bg-slate-900 disabled:opacity-50"
      >
        {busy === "confirm" ? "Waiting for your existing passkey…" : busy === "create" ? "Waiting for your authenticator…" : "Add a passkey"}
      </button>
      <p role="status" className={`min-h-5 text-sm ${line && !line.ok ? "font-medium text-red-800" : "text-slate-700"}`} data-testid="passkey-line">
        {line?.text ?? ""}
      </p>
    </div>
  );
}
