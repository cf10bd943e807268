// Notifications in the console (issue 28), kept out of app.ts: app.ts calls
// setupPush once connected and hands it each event.
//
// - Web Push: "Notify me" asks the browser's permission, registers the
//   service worker (dist/sw.js, served under the console's CSP), subscribes
//   with cdevd's VAPID key and registers the subscription for this device.
//   The worker shows what cdevd pushes and opens the session on a click.
// - While this tab is open but hidden, cdevd counts it as absent
//   (presence.ts) and notifies its sinks. A browser without a push
//   subscription (no push service, or "Notify me" not asked) would hear
//   nothing, so the page shows a plain notification itself for a request
//   or a question; with one, cdevd's push says it (same tag, one shown).
// - A click on a notification opens its session: the worker asks an open
//   tab, or opens the click URL, whose fragment this module reads.

export interface PushHooks {
  // call is app.ts's typed call, loosened: this module names its methods.
  call: (method: string, params: Record<string, unknown>) => Promise<any>;
  // open shows a session, as a click on a notification asks.
  open: (workspaceId: string, sessionId: string, agentType: string) => void;
}

let hooks: PushHooks | null = null;

// A session to open: what a notification's click URL carries in its
// fragment (notify.SessionURL: #session=…&workspace=…&agent=…). Read as
// the page loads, before the token is taken from the same fragment; a
// window opened without a token opens it after the login.
export interface Clicked {
  workspaceId: string;
  sessionId: string;
  agentType: string;
}

let clicked: Clicked | null = readClicked();

function readClicked(): Clicked | null {
  const frag = new URLSearchParams(location.hash.slice(1));
  const sessionId = frag.get("session");
  const workspaceId = frag.get("workspace");
  if (!sessionId || !workspaceId) return null;
  const agentType = frag.get("agent") ?? "";
  for (const k of ["session", "workspace", "agent"]) frag.delete(k);
  // Out of the address bar, so that a reload does not open it again; a
  // token in the same fragment stays for app.ts to take.
  const rest = frag.toString();
  history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  return { workspaceId, sessionId, agentType };
}

// takeClicked hands over the session to open, once.
export function takeClicked(): Clicked | null {
  const c = clicked;
  clicked = null;
  return c;
}
let started = false;
let pushing = false; // this browser's subscription is registered with cdevd

const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

export function setupPush(h: PushHooks): void {
  hooks = h; // the latest connection's
  if (!supported || started) return;
  started = true;
  navigator.serviceWorker.addEventListener("message", (e: MessageEvent) => {
    const d = e.data;
    if (d && d.type === "open" && typeof d.sessionId === "string") hooks?.open(d.workspaceId, d.sessionId, d.agentType ?? "");
  });
  let button = document.getElementById("notify-me") as HTMLButtonElement | null;
  if (!button) {
    button = document.createElement("button");
    button.id = "notify-me";
    button.type = "button";
    document.querySelector("header")?.appendChild(button);
  }
  const b = button;
  const label = () => {
    b.textContent = Notification.permission === "granted" ? "Notifications on" : "Notify me";
    b.disabled = Notification.permission === "denied";
  };
  label();
  b.onclick = () => {
    subscribe()
      .catch((e: unknown) => {
        b.title = e instanceof Error ? e.message : String(e);
      })
      .finally(label);
  };
  // Already allowed: keep the subscription registered (cdevd may have
  // forgotten one the push service reported gone).
  if (Notification.permission === "granted") subscribe().catch(() => {});
}

async function subscribe(): Promise<void> {
  if (!hooks) return;
  if ((await Notification.requestPermission()) !== "granted") throw new Error("notifications not allowed");
  const reg = await navigator.serviceWorker.register("sw.js", { scope: "./" });
  await navigator.serviceWorker.ready;
  const { public_key } = await hooks.call("notify/vapidKey", {});
  let sub = await reg.pushManager.getSubscription();
  if (sub && !sameKey(sub.options.applicationServerKey, public_key)) {
    await sub.unsubscribe(); // made for another cdevd's key
    sub = null;
  }
  sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64url(public_key) });
  const json = sub.toJSON();
  await hooks.call("notify/subscribe", {
    endpoint: json.endpoint,
    p256dh: json.keys?.p256dh,
    auth: json.keys?.auth,
    device: navigator.userAgent.slice(0, 64),
  });
  pushing = true;
}

// noticeEvent shows a plain notification for a request or a question
// while the tab is hidden (app.ts hands it every event).
export function noticeEvent(type: string, p: any): void {
  if (!supported || pushing || !document.hidden || Notification.permission !== "granted") return;
  if (type !== "pty_permission" && type !== "question") return;
  const what = type === "question" ? (p.questions?.[0]?.question ?? "a question") : `${p.tool_name}: ${p.target ?? ""}`;
  const n = new Notification(`${p.agent_type} needs you`, {
    body: String(what).slice(0, 200),
    tag: `${p.session_id}/${p.request_id}`,
  });
  n.onclick = () => {
    window.focus();
    hooks?.open(p.workspace_id, p.session_id, p.agent_type);
    n.close();
  };
}

function base64url(s: string): Uint8Array<ArrayBuffer> {
  const b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
  const out = new Uint8Array(new ArrayBuffer(b.length));
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}

function sameKey(have: ArrayBuffer | null, want: string): boolean {
  if (!have) return false;
  const a = new Uint8Array(have);
  const b = base64url(want);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
