"use client";
// A request's status on its own page, kept true while the page stays open: a
// pending request turns "expired" at its expiry by the viewer's clock, and
// the page is then re-read once (whoever looks, not only those who could
// vote), so every part of it says what the server now says.
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { StatusBadge } from "@/components/status-badge";
import { useNow } from "@/components/time";

// setTimeout's longest delay (about 24.8 days); a later expiry is re-armed by the next render.
const MAX_DELAY_MS = 2 ** 31 - 1;
// The server decides expiry by its own clock: re-read a moment after ours.
const EXPIRY_REFRESH_MARGIN_MS = 1000;

export function RequestStatus({ status, expiresAt }: { status: string; expiresAt: string }) {
  const router = useRouter();
  const now = useNow();
  const pending = status === "pending";
  useEffect(() => {
    if (!pending) return;
    const left = Date.parse(expiresAt) - Date.now();
    // Already past (the server has not caught up yet): no re-read loop; the live feed brings the change.
    if (left <= 0) return;
    const reread = setTimeout(() => router.refresh(), Math.min(left + EXPIRY_REFRESH_MARGIN_MS, MAX_DELAY_MS));
    return () => clearTimeout(reread);
  }, [pending, expiresAt, router]);
  const shown = pending && now !== null && now >= Date.parse(expiresAt) ? "expired" : status;
  return <StatusBadge status={shown} />;
}
