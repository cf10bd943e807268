// Presence (issue 28): cdevd sends no notification about a session that
// someone is looking at. The console says which session it shows
// (client/session/focus) and, from document.visibilityState, when its tab
// is hidden (active:false): a tab in the background is nobody looking.
import { call } from "./rpc.js";
import { page } from "./state.js";

// focusOpen tells cdevd about the open session: shown, or hidden with the
// tab. Presence belongs to a connection, so app.ts calls it again after
// each (re)connection, and session.ts after each open.
export function focusOpen(): void {
  const o = page.open;
  if (!o) return;
  const params = { workspace_id: o.workspaceId, session_id: o.sessionId, active: !document.hidden };
  // A failure only leaves cdevd thinking nobody looks: it notifies.
  call("client/session/focus", params).catch(() => {});
}

let wired = false;

export function setupPresence(): void {
  if (wired) return;
  wired = true;
  document.addEventListener("visibilitychange", focusOpen);
}
