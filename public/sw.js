// Countersign's service worker: shows Web Push messages and opens the
// request they are about. Nothing is cached; the app works online only.
// The payload is {"title","body","url","tag"} (lib/notifications/compose-message.ts):
// a reminder carries the same tag as the first notice, so it replaces it.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

/** Only this origin's pages: a payload can never send the user elsewhere. */
function sameOriginUrl(raw) {
  try {
    const url = new URL(raw, self.location.origin);
    return url.origin === self.location.origin ? url.href : null;
  } catch {
    return null;
  }
}

self.addEventListener("push", (event) => {
  let data;
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {}; // not JSON: shown with the defaults below
  }
  const title = typeof data.title === "string" && data.title ? data.title : "Countersign";
  const url = sameOriginUrl(typeof data.url === "string" ? data.url : "/approvals") || new URL("/approvals", self.location.origin).href;
  const options = {
    body: typeof data.body === "string" ? data.body : "",
    icon: "/icons/icon-192.png",
    data: { url },
  };
  if (typeof data.tag === "string" && data.tag) {
    options.tag = data.tag;
    // A replacement (a reminder) alerts again instead of updating silently.
    options.renotify = true;
  }
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = sameOriginUrl(event.notification.data && event.notification.data.url) || new URL("/approvals", self.location.origin).href;
  event.waitUntil(
    (async () => {
      const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      // A tab already on this request, else any Countersign tab, navigated there.
      const exact = tabs.find((t) => t.url === target);
      if (exact) return exact.focus();
      const any = tabs.find((t) => new URL(t.url).origin === self.location.origin);
      if (any) {
        const focused = await any.focus();
        return focused.navigate ? focused.navigate(target) : focused;
      }
      return self.clients.openWindow(target);
    })(),
  );
});
