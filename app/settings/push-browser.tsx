"use client";
// "This browser": turning Web Push on or off here. Registers /sw.js, asks
// for permission, subscribes with the server's VAPID key and hands the
// subscription to the server; every failure is said in words on the page.
import { useEffect, useState, useTransition } from "react";
import { useRouter } from "next/navigation";
import type { ActionState } from "@/lib/auth/guards";

type Props = {
  vapidPublicKey: string | null;
  subscribe: (subscription: unknown) => Promise<ActionState>;
  unsubscribe: (endpoint: unknown) => Promise<ActionState>;
};

type Status = "checking" | "unsupported" | "denied" | "on" | "off";

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

function supported(): boolean {
  return typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

async function currentSubscription(): Promise<PushSubscription | null> {
  const reg = await navigator.serviceWorker.getRegistration("/");
  return reg ? reg.pushManager.getSubscription() : null;
}

export function PushBrowser({ vapidPublicKey, subscribe, unsubscribe }: Props) {
  const [status, setStatus] = useState<Status>("checking");
  const [result, setResult] = useState<NonNullable<ActionState> | null>(null);
  const [pending, startTransition] = useTransition();
  const router = useRouter();

  useEffect(() => {
    if (!supported()) {
      setStatus("unsupported");
      return;
    }
    if (Notification.permission === "denied") {
      setStatus("denied");
      return;
    }
    currentSubscription().then(
      (s) => setStatus(s ? "on" : "off"),
      () => setStatus("off"),
    );
  }, []);

  const turnOn = () =>
    startTransition(async () => {
      setResult(null);
      if (!vapidPublicKey) return;
      try {
        // Asked first, still inside the click: Safari grants the prompt only to a user gesture.
        const permission = await Notification.requestPermission();
        if (permission !== "granted") {
          setStatus(permission === "denied" ? "denied" : "off");
          setResult({ ok: false, message: "Notifications were not allowed. Allow them for this site in the browser's settings, then try again." });
          return;
        }
        const reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
        await navigator.serviceWorker.ready;
        let sub: PushSubscription;
        try {
          sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(vapidPublicKey) });
        } catch (e) {
          setResult({
            ok: false,
            // The browser's own words: its vendor's push service unreachable, push refused (private or headless windows), …
            message: `This browser could not subscribe to push messages (${(e as Error).name}: ${(e as Error).message}). It needs notifications allowed for this site and its vendor's push service reachable; some browsers (private or headless windows) cannot receive push at all. Email still works.`,
          });
          return;
        }
        const answer = await subscribe(sub.toJSON());
        if (!answer?.ok) await sub.unsubscribe().catch(() => undefined); // the server did not keep it: leave nothing behind
        setResult(answer);
        setStatus(answer?.ok ? "on" : "off");
        router.refresh();
      } catch (e) {
        setResult({ ok: false, message: `Could not turn notifications on (${(e as Error).name}: ${(e as Error).message}).` });
      }
    });

  const turnOff = () =>
    startTransition(async () => {
      setResult(null);
      try {
        const sub = await currentSubscription();
        if (sub) {
          const answer = await unsubscribe(sub.endpoint);
          await sub.unsubscribe();
          setResult(answer);
        } else {
          setResult({ ok: true, message: "This browser was not subscribed." });
        }
        setStatus("off");
        router.refresh();
      } catch (e) {
        setResult({ ok: false, message: `Could not turn notifications off (${(e as Error).name}).` });
      }
    });

  const button = "rounded bg-slate-900 px-3 py-2 text-sm font-medium text-white hover:bg-slate-700 disabled:opacity-50";
  const plain = "rounded border border-slate-300 px-3 py-2 text-sm hover:bg-slate-100 disabled:opacity-50";
  const words: Record<Status, string> = {
    checking: "Checking this browser…",
    unsupported: "This browser does not support Web Push notifications.",
    denied: "Notifications are blocked for this site in this browser's settings.",
    on: "Notifications are on in this browser.",
    off: "Notifications are off in this browser.",
  };

  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm" data-testid="push-browser-status">
        {vapidPublicKey ? words[status] : "Web Push is not set up on this server (no VAPID keys), so browsers cannot be told."}
      </p>
      <div className="flex flex-wrap gap-3">
        <button
          type="button"
          className={button}
          onClick={turnOn}
          disabled={!vapidPublicKey || pending || status === "unsupported" || status === "checking"}
        >
          {pending ? "Working…" : "Turn on notifications in this browser"}
        </button>
        <button type="button" className={plain} onClick={turnOff} disabled={pending || status !== "on"}>
          Turn off in this browser
        </button>
      </div>
      {result && (
        <p
          role={result.ok ? "status" : "alert"}
          className={`rounded border p-2 text-sm ${result.ok ? "border-green-300 bg-green-50" : "border-red-300 bg-red-50 text-red-800"}`}
        >
          {result.message}
        </p>
      )}
    </div>
  );
}
