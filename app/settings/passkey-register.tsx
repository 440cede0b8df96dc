"use client";
// Adding a passkey on /settings (docs/passkeys.md): the server's creation
// options, the browser's WebAuthn ceremony (@simplewebauthn/browser), the
// answer back to the server, which verifies and stores it.
import { useState } from "react";
import { useRouter } from "next/navigation";
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";

type Answer = { ok: boolean; message: string; options?: unknown } | null;

type Props = {
  options: () => Promise<Answer>;
  register: (response: unknown, name: unknown) => Promise<Answer>;
};

export function PasskeyRegister({ options, register }: Props) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [line, setLine] = useState<{ ok: boolean; text: string } | null>(null);

  async function add() {
    setBusy(true);
    setLine(null);
    try {
      const begun = await options();
      if (!begun?.ok || !begun.options) return setLine({ ok: false, text: begun?.message || "The passkey could not be started." });
      let response;
      try {
        response = await startRegistration({ optionsJSON: begun.options as PublicKeyCredentialCreationOptionsJSON });
      } catch {
        return setLine({ ok: false, text: "No passkey was made (cancelled, or this browser has no authenticator)." });
      }
      const done = await register(response, name.trim() || "Passkey");
      setLine({ ok: Boolean(done?.ok), text: done?.message ?? "Something went wrong." });
      if (done?.ok) {
        setName("");
        router.refresh();
      }
    } finally {
      setBusy(false);
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
        disabled={busy}
        className="h-11 self-start rounded bg-slate-800 px-4 font-medium text-white hover:bg-slate-900 disabled:opacity-50"
      >
        {busy ? "Waiting for your authenticator…" : "Add a passkey"}
      </button>
      <p role="status" className={`min-h-5 text-sm ${line && !line.ok ? "font-medium text-red-800" : "text-slate-700"}`} data-testid="passkey-line">
        {line?.text ?? ""}
      </p>
    </div>
  );
}
