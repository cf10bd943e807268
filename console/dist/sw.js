// cdevd console's service worker (written by hand, like index.html): it
// shows what cdevd pushes (Web Push, decrypted by the browser) and opens
// the session on a click. A withdrawal (the request was answered) closes
// the notification with the same tag.
"use strict";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));

self.addEventListener("push", (e) => {
  let p = {};
  try {
    p = e.data ? e.data.json() : {};
  } catch {
    return;
  }
  if (p.action === "withdraw") {
    e.waitUntil(
      self.registration.getNotifications({ tag: p.tag }).then((ns) => ns.forEach((n) => n.close())),
    );
    return;
  }
  e.waitUntil(
    self.registration.showNotification(p.title || "cdevd", {
      body: p.body || "",
      tag: p.tag,
      renotify: true,
      requireInteraction: p.kind === "permission" || p.kind === "question",
      data: { url: p.url || "./", workspaceId: p.workspace_id, sessionId: p.session_id, agentType: p.runtime },
    }),
  );
});

self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const d = e.notification.data || {};
  e.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
      // An open console has its token: it opens the session itself.
      for (const tab of tabs) {
        tab.postMessage({ type: "open", workspaceId: d.workspaceId, sessionId: d.sessionId, agentType: d.agentType });
        return tab.focus();
      }
      return self.clients.openWindow(d.url);
    }),
  );
});
