// The console page: DOM only; everything about the protocol is in the
// TypeScript client package (@cdevd/client, clients/ts), bundled in by esbuild.
import {
  CdevdClient,
  ConnectionError,
  RpcError,
  browserSocket,
  type ConnState,
  type InitializeResult,
  type Method,
  type ParamArgs,
  type Result,
  type Runtime,
  type ServerNotification,
} from "../../clients/ts/src/index.js";

const tokenKey = "cdevd.token";
// A console opened with a pairing link (#pair=cdev_p_…, what `cdevd serve`
// prints) is a paired device: it keeps its refresh token here and renews
// its short-lived access token (kept under tokenKey) before it expires.
const refreshKey = "cdevd.refresh";
const pageSize = 50;

interface Workspace {
  id: string;
  name: string;
  path: string;
}

interface Open {
  workspaceId: string;
  sessionId: string;
  agentType: string;
  offset: number; // messages loaded from the newest backwards (paging)
  hasMore: boolean;
  loading: boolean;
  seen: Set<string>; // message ids rendered, so a page and live events never repeat one
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

// h builds an element; text goes in as text nodes, never as HTML.
function h(tag: string, attrs: Record<string, string> = {}, ...kids: (Node | string | null)[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const k of kids) if (k !== null) el.append(k);
  return el;
}

let client: CdevdClient | null = null;
let runtimes: Runtime[] = [];
let workspaces: Workspace[] = [];
let selected: Workspace | null = null;
let open: Open | null = null;

function showBanner(msg: string): void {
  const b = $("banner");
  b.textContent = msg;
  b.hidden = msg === "";
}

function describe(e: unknown): string {
  if (e instanceof RpcError) {
    const d = (e.data ?? {}) as { reason?: unknown };
    const reason = typeof d.reason === "string" ? `: ${d.reason}` : "";
    return `${e.message}${reason}`;
  }
  return e instanceof Error ? e.message : String(e);
}

// guard runs an action and shows its failure instead of swallowing it.
async function guard(f: () => Promise<void>): Promise<void> {
  try {
    await f();
  } catch (e) {
    showBanner(describe(e));
  }
}

function call<M extends Method>(method: M, ...args: ParamArgs<M>): Promise<Result<M>> {
  if (!client) return Promise.reject(new Error("not connected"));
  return client.call(method, ...args);
}

// ---- token and connection ----

function takeToken(): string | null {
  const frag = new URLSearchParams(location.hash.slice(1));
  const t = frag.get("token");
  if (t) {
    sessionStorage.setItem(tokenKey, t);
    // Out of the address bar, the history and any screenshot.
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(tokenKey);
}

// The answer of /api/auth/exchange and /api/auth/refresh.
interface DevicePair {
  access_token: string;
  access_token_expires_at: string;
  refresh_token: string;
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

function keepPair(p: DevicePair): string {
  sessionStorage.setItem(tokenKey, p.access_token);
  sessionStorage.setItem(refreshKey, p.refresh_token);
  // Two minutes before it expires, as the iOS app does; an open socket
  // stays open regardless, the new token is for the next connection.
  clearTimeout(refreshTimer);
  const ms = Math.max(5000, Date.parse(p.access_token_expires_at) - Date.now() - 120_000);
  refreshTimer = setTimeout(() => void renew(), ms);
  return p.access_token;
}

async function postPair(path: string, body: object): Promise<string | null> {
  try {
    const r = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
    });
    return r.ok ? keepPair((await r.json()) as DevicePair) : null;
  } catch {
    return null;
  }
}

// renew trades the kept refresh token for a new pair; null when there is
// none or it was refused (the console must then be paired again).
async function renew(): Promise<string | null> {
  const rt = sessionStorage.getItem(refreshKey);
  if (!rt) return null;
  const t = await postPair("/api/auth/refresh", { refresh_token: rt });
  if (!t) sessionStorage.removeItem(refreshKey);
  return t;
}

// takePairing exchanges the pairing token of a #pair= link once.
async function takePairing(): Promise<string | null | undefined> {
  const frag = new URLSearchParams(location.hash.slice(1));
  const p = frag.get("pair");
  if (!p) return undefined;
  history.replaceState(null, "", location.pathname + location.search);
  return postPair("/api/auth/exchange", { pairing_token: p });
}

function showLogin(msg?: string): void {
  $("app").hidden = true;
  $("login").hidden = false;
  if (msg) $("login-msg").textContent = msg;
  $<HTMLInputElement>("token-input").focus();
}

function connect(token: string): void {
  client?.close();
  $("login").hidden = true;
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const c = new CdevdClient({
    url: scheme + location.host + "/ws",
    token,
    // Each (re)connection presents the newest access token.
    socket: (url, t) => browserSocket(url, sessionStorage.getItem(tokenKey) ?? t),
    clientName: "cdevd-console",
    onEvent,
    onState,
    onRewatch: (r) => {
      if (r.gap && open && open.sessionId === r.sessionId) guard(reloadTranscript);
    },
    serverUp: () =>
      fetch("/healthz", { cache: "no-store" })
        .then((r) => r.ok)
        .catch(() => false),
  });
  client = c;
  const attempt = () =>
    c.connect().catch((e: unknown) => {
      if (client !== c) return;
      if (e instanceof ConnectionError && e.reason === "refused") return refused();
      // Not there yet (down, restarting): the package reconnects only
      // after a first success, so the page tries again itself.
      onState({ kind: "lost", error: e as Error, retryInMs: 2000 });
      setTimeout(() => client === c && attempt(), 2000);
    });
  attempt();
}

function refused(): void {
  client?.close();
  if (sessionStorage.getItem(refreshKey)) {
    // A paired console's access token may have expired while it slept.
    void renew().then((t) => (t ? connect(t) : refused()));
    return;
  }
  sessionStorage.removeItem(tokenKey);
  $("conn").textContent = "not connected";
  showLogin("The token was refused. Paste the token that `cdevd token` prints.");
  $("login").classList.add("refused");
}

function onState(s: ConnState): void {
  const c = $("conn");
  c.className = "conn";
  switch (s.kind) {
    case "connecting":
      c.textContent = s.attempt ? "reconnecting…" : "connecting…";
      break;
    case "open":
      c.textContent = "connected";
      c.classList.add("open");
      showBanner("");
      onOpen(s.init);
      break;
    case "lost":
      c.textContent = "connection lost";
      c.classList.add("lost");
      showBanner(`Connection lost: reconnecting in ${Math.ceil(s.retryInMs / 1000)} s`);
      break;
    case "closed":
      // A token refused on a reconnect (rotated meanwhile) closes the client.
      if (s.error instanceof ConnectionError && s.error.reason === "refused") return refused();
      c.textContent = "closed";
  }
}

function onOpen(init: InitializeResult): void {
  $("server").textContent = `${init.serverInfo.name} ${init.serverInfo.version}`;
  $("app").hidden = false;
  runtimes = init.capabilities.runtimeRegistry.runtimes;
  renderRuntimes(init.capabilities.runtimeRegistry.defaultRuntime);
  guard(loadWorkspaces);
}

// ---- registry ----

const usable = (r: Runtime) => r.status !== "disabled";

function renderRuntimes(def: string): void {
  const ul = $("runtimes");
  ul.replaceChildren();
  for (const r of runtimes) {
    const a = r.availability ?? { installed: false };
    ul.append(
      h(
        "li",
        { class: "runtime", "data-id": r.id },
        h("strong", {}, r.displayName ?? r.id),
        h("span", { class: "status " + r.status }, r.status),
        h("span", { class: "version" }, a.version ?? ""),
        a.reason ? h("span", { class: "reason" }, a.reason) : null,
      ),
    );
  }
  for (const id of ["start-runtime", "history-runtime"]) {
    const sel = $<HTMLSelectElement>(id);
    sel.replaceChildren();
    for (const r of runtimes) {
      const o = h("option", { value: r.id }, r.displayName ?? r.id) as HTMLOptionElement;
      if (id === "start-runtime" && !usable(r)) {
        o.disabled = true;
        o.textContent += ` (disabled: ${r.availability?.reason ?? "unavailable"})`;
      }
      sel.append(o);
    }
    const first = runtimes.find((r) => r.id === def && usable(r)) ?? runtimes.find(usable);
    if (first) sel.value = first.id;
  }
  $<HTMLButtonElement>("start").disabled = !runtimes.some(usable);
}

// ---- workspaces and history ----

async function loadWorkspaces(): Promise<void> {
  const res = await call("workspace/list");
  workspaces = res.workspaces ?? [];
  const ul = $("workspaces");
  ul.replaceChildren();
  for (const w of workspaces) {
    const pick = h("button", { class: "ws-open", type: "button", title: w.path }, w.name);
    pick.onclick = () => guard(() => selectWorkspace(w));
    const rm = h("button", { class: "ws-remove", type: "button", "aria-label": "remove " + w.name }, "×");
    rm.onclick = () =>
      guard(async () => {
        await call("workspace/remove", { workspace_id: w.id });
        if (selected?.id === w.id) {
          selected = null;
          $("ws-pane").hidden = true;
        }
        await loadWorkspaces();
      });
    ul.append(h("li", { class: "ws" + (selected?.id === w.id ? " selected" : ""), "data-id": w.id }, pick, rm));
  }
  if (selected) {
    const again = workspaces.find((w) => w.id === selected!.id);
    if (again) await selectWorkspace(again);
  }
}

async function selectWorkspace(w: Workspace): Promise<void> {
  selected = w;
  for (const li of $("workspaces").children) li.classList.toggle("selected", (li as HTMLElement).dataset.id === w.id);
  $("ws-title").textContent = w.name;
  $("ws-pane").hidden = false;
  // Subscribed, the page hears of sessions changing (terminal ones too).
  await call("workspace/subscribe", { workspace_id: w.id });
  await loadHistory();
}

async function loadHistory(): Promise<void> {
  if (!selected) return;
  const agent = $<HTMLSelectElement>("history-runtime").value;
  const ul = $("history");
  const rt = runtimes.find((r) => r.id === agent);
  if (!rt || !usable(rt)) {
    ul.replaceChildren(h("li", { class: "hist-none" }, `${agent}: ${rt?.availability?.reason ?? "unavailable"}`));
    return;
  }
  const ws = selected;
  const res = await call("workspace/session/history", {
    workspace_id: ws.id,
    agent_type: agent,
    limit: pageSize,
  });
  if (selected !== ws) return;
  ul.replaceChildren();
  for (const s of res.sessions ?? []) {
    const li = h(
      "li",
      { class: "hist", "data-session": s.session_id },
      h("div", { class: "summary" }, s.summary || "(no summary)"),
      h("div", { class: "meta" }, `${s.message_count} messages · ${s.status} · ${new Date(s.last_updated).toLocaleString()}`),
    );
    li.onclick = () => guard(() => openSession(ws.id, s.session_id, s.agent_type ?? agent, false));
    ul.append(li);
  }
  if (!ul.children.length) ul.append(h("li", { class: "hist-none" }, "No sessions yet."));
}

let historyTimer: ReturnType<typeof setTimeout> | null = null;

// Several updates in a burst (a turn streaming) reload the list once.
function historySoon(): void {
  if (historyTimer) return;
  historyTimer = setTimeout(() => {
    historyTimer = null;
    guard(loadHistory);
  }, 300);
}

// ---- a session ----

async function openSession(workspaceId: string, sessionId: string, agentType: string, started: boolean): Promise<void> {
  if (open && open.sessionId !== sessionId && client) {
    const prev = open.sessionId;
    client.unwatch(prev).catch(() => {});
  }
  open = { workspaceId, sessionId, agentType, offset: 0, hasMore: true, loading: false, seen: new Set() };
  $("session").hidden = false;
  $("session").dataset.session = sessionId;
  $("session-title").textContent = `${agentType} · ${sessionId}`;
  $("transcript").replaceChildren();
  $("prompts").replaceChildren();
  note("");
  setState("idle");
  if (started) {
    client!.track(workspaceId, sessionId, agentType);
    open.hasMore = false;
    return;
  }
  // Watch first, then read: whatever happens in between arrives as an
  // event, and ids keep it from showing twice.
  await client!.watch({ workspace_id: workspaceId, session_id: sessionId, agent_type: agentType });
  await loadOlder();
  try {
    const st = await call("session/state", { session_id: sessionId });
    setState(st.is_running ? st.activity ?? "idle" : st.status);
  } catch {
    setState("historical");
  }
}

async function reloadTranscript(): Promise<void> {
  if (!open) return;
  open.offset = 0;
  open.hasMore = true;
  open.seen.clear();
  $("transcript").replaceChildren();
  await loadOlder();
}

// loadOlder reads the next page backwards from the newest message and puts
// it on top, keeping what the reader is looking at in place.
async function loadOlder(): Promise<void> {
  const o = open;
  if (!o || !o.hasMore || o.loading) return;
  o.loading = true;
  try {
    const res = await call("workspace/session/messages", {
      workspace_id: o.workspaceId,
      session_id: o.sessionId,
      agent_type: o.agentType,
      limit: pageSize,
      offset: o.offset,
      order: "desc",
    });
    if (open !== o) return;
    const msgs: any[] = res.messages ?? [];
    o.offset += msgs.length;
    o.hasMore = !!res.has_more && msgs.length > 0;
    const t = $("transcript");
    const before = t.scrollHeight - t.scrollTop;
    const frag = document.createDocumentFragment();
    for (const m of msgs.reverse()) {
      if (m.id && o.seen.has(m.id)) continue;
      if (m.id) o.seen.add(m.id);
      frag.append(renderMessage(m));
    }
    const first = t.querySelector(".older");
    first?.remove();
    t.prepend(frag);
    if (o.hasMore) t.prepend(h("div", { class: "older" }, "scroll up for older messages"));
    t.scrollTop = t.scrollHeight - before;
  } finally {
    o.loading = false;
  }
}

function asText(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((b) => (typeof b === "string" ? b : b?.text ?? JSON.stringify(b))).join("\n");
  return c == null ? "" : JSON.stringify(c, null, 2);
}

function renderBlock(b: any): Node {
  switch (b?.type) {
    case "text":
      return h("div", { class: "text" }, b.text ?? "");
    case "thinking":
      // Collapsed: the answer matters more than the reasoning.
      return h("details", { class: "thinking" }, h("summary", {}, "thinking"), h("div", { class: "text" }, b.thinking ?? b.text ?? ""));
    case "tool_use":
      return h(
        "div",
        { class: "tool-use" },
        h("span", { class: "name" }, `${b.name}`),
        h("pre", {}, typeof b.input === "string" ? b.input : JSON.stringify(b.input, null, 2)),
      );
    case "tool_result":
      return h(
        "details",
        { class: "tool-result" + (b.is_error ? " error" : ""), open: "" },
        h("summary", {}, b.is_error ? "tool error" : "tool result"),
        h("pre", {}, asText(b.content)),
      );
    case "image":
      return h("div", { class: "text" }, "[image]");
    default:
      return h("pre", {}, JSON.stringify(b, null, 2));
  }
}

function renderMessage(m: any): HTMLElement {
  const el = h("div", { class: "msg " + (m.type ?? m.message?.role ?? ""), "data-id": m.id ?? "" });
  const content = m.message?.content;
  if (typeof content === "string") el.append(h("div", { class: "text" }, content));
  else for (const b of content ?? []) el.append(renderBlock(b));
  return el;
}

function stuckToBottom(): boolean {
  const t = $("transcript");
  return t.scrollHeight - t.scrollTop - t.clientHeight < 60;
}

function append(el: HTMLElement): void {
  const t = $("transcript");
  const stick = stuckToBottom();
  t.append(el);
  if (stick) t.scrollTop = t.scrollHeight;
}

function setState(s: string): void {
  const el = $("state");
  el.textContent = s;
  el.className = "state " + s;
}

function note(msg: string, crashed = false): void {
  const n = $("session-note");
  n.textContent = msg;
  n.hidden = msg === "";
  n.classList.toggle("crashed", crashed);
}

function delta(p: any): void {
  const t = $("transcript");
  // Counted for the browser tests: proof the answer streamed.
  t.dataset.deltas = String(Number(t.dataset.deltas ?? 0) + 1);
  let el = t.querySelector<HTMLElement>(`.msg.streaming[data-id="${CSS.escape(p.message_id ?? "")}"]`);
  if (!el) {
    el = h("div", { class: "msg assistant streaming", "data-id": p.message_id ?? "" });
    append(el);
  }
  const cls = p.phase === "thinking" ? "thinking" : "text";
  let part = el.lastElementChild as HTMLElement | null;
  if (!part || !part.classList.contains("part-" + cls)) {
    part =
      cls === "thinking"
        ? h("details", { class: "thinking part-thinking" }, h("summary", {}, "thinking"), h("div", { class: "text" }))
        : h("div", { class: "text part-text" });
    el.append(part);
  }
  const target = cls === "thinking" ? (part.lastElementChild as HTMLElement) : part;
  target.textContent += p.text ?? "";
  if (stuckToBottom()) t.scrollTop = t.scrollHeight;
}

// A complete message replaces its streamed draft: the one with its id, or
// (for runtimes whose deltas carry ids of cdevd's making) the oldest draft.
function message(p: any): void {
  const o = open!;
  const t = $("transcript");
  if (p.type === "assistant") {
    const draft =
      t.querySelector(`.msg.streaming[data-id="${CSS.escape(p.id ?? "")}"]`) ?? t.querySelector(".msg.streaming");
    draft?.remove();
  }
  if (p.id && o.seen.has(p.id)) return;
  if (p.id) o.seen.add(p.id);
  o.offset++;
  append(renderMessage(p));
}

// cutDrafts marks drafts that will never be completed, the process that
// was writing them being gone, so they no longer look in progress.
function cutDrafts(): void {
  for (const d of $("transcript").querySelectorAll(".msg.streaming")) {
    d.classList.remove("streaming");
    d.classList.add("interrupted");
  }
}

function prompt(p: any, kind: "permission" | "question"): void {
  const box = $("prompts");
  if (box.querySelector(`[data-request="${CSS.escape(p.request_id)}"]`)) return;
  const card = h("div", { class: "prompt " + kind, "data-request": p.request_id });
  const answer = (response: string) =>
    guard(async () => {
      await call("session/respond", {
        session_id: open!.sessionId,
        agent_type: open!.agentType,
        type: kind,
        response,
        request_id: p.request_id,
      });
    });
  if (kind === "permission") {
    card.append(
      h("div", { class: "title" }, `${p.tool_name} wants to run: ${p.description || p.type}`),
      h("pre", { class: "target" }, p.target ?? ""),
    );
    if (p.preview && p.preview !== p.target) card.append(h("pre", { class: "preview" }, p.preview));
    const row = h("div", { class: "row" });
    for (const opt of p.options ?? []) {
      const b = h("button", { type: "button", class: "answer", "data-key": opt.key }, opt.label || opt.key);
      b.onclick = () => answer(opt.key);
      row.append(b);
    }
    card.append(row);
  } else {
    for (const q of p.questions ?? []) {
      card.append(h("div", { class: "title" }, q.question));
      const row = h("div", { class: "row" });
      for (const opt of q.options ?? []) {
        const b = h("button", { type: "button", class: "answer", "data-key": opt.key, title: opt.description ?? "" }, opt.label || opt.key);
        b.onclick = () => answer(opt.key);
        row.append(b);
      }
      card.append(row);
    }
    const form = h("form", { class: "row" });
    const input = h("input", { placeholder: "or type an answer" }) as HTMLInputElement;
    form.append(input, h("button", { type: "submit" }, "Answer"));
    form.onsubmit = (e) => {
      e.preventDefault();
      if (input.value) answer(input.value);
    };
    card.append(form);
  }
  box.append(card);
}

function onEvent(n: ServerNotification): void {
  // Rendering reads fields loosely (a newer server may send more).
  const p: any = n.params;
  const type = n.method.slice("event/".length);
  if (type === "session_updated" || type === "session_start" || type === "session_end" || type === "session_stopped") {
    if (selected && p.workspace_id === selected.id) historySoon();
  }
  if (!open || p.session_id !== open.sessionId) return;
  switch (type) {
    case "message_delta":
      delta(p);
      break;
    case "claude_message":
      message(p);
      break;
    case "pty_permission":
      prompt(p, "permission");
      break;
    case "question":
      prompt(p, "question");
      break;
    case "pty_permission_resolved": {
      const card = $("prompts").querySelector(`[data-request="${CSS.escape(p.request_id)}"]`);
      card?.remove();
      append(h("div", { class: "note resolved" }, `Prompt answered: ${p.decision}`));
      break;
    }
    case "pty_state":
      setState(p.state);
      break;
    case "turn_completed":
      for (const d of $("transcript").querySelectorAll(".msg.streaming")) d.classList.remove("streaming");
      setState("idle");
      break;
    case "error":
      note(`Error (${p.code}): ${p.message}`, true);
      setState("error");
      break;
    case "session_stopped":
      note("Session stopped.");
      setState("stopped");
      cutDrafts();
      $("prompts").replaceChildren();
      break;
    case "session_end": {
      const crashed = p.exit_code !== undefined && p.exit_code !== 0;
      note(crashed ? `Session crashed: ${p.reason} (exit code ${p.exit_code})` : `Session ended: ${p.reason}`, crashed);
      setState(crashed ? "error" : "stopped");
      cutDrafts();
      $("prompts").replaceChildren();
      break;
    }
  }
}

// ---- wiring ----

function wire(): void {
  $("token-form").onsubmit = (e) => {
    e.preventDefault();
    const t = $<HTMLInputElement>("token-input").value.trim();
    if (!t) return;
    sessionStorage.setItem(tokenKey, t);
    $("login").classList.remove("refused");
    connect(t);
  };
  $("ws-add").onsubmit = (e) => {
    e.preventDefault();
    guard(async () => {
      const path = $<HTMLInputElement>("ws-path").value.trim();
      const w = await call("workspace/add", { path });
      $<HTMLInputElement>("ws-path").value = "";
      selected = w;
      await loadWorkspaces();
    });
  };
  $("history-runtime").onchange = () => guard(loadHistory);
  $("start").onclick = () =>
    guard(async () => {
      if (!selected) return;
      const agent = $<HTMLSelectElement>("start-runtime").value;
      const res = await call("session/start", { workspace_id: selected.id, agent_type: agent });
      await openSession(selected.id, res.session_id, res.agent_type ?? agent, true);
      $<HTMLTextAreaElement>("prompt").focus();
    });
  $("composer").onsubmit = (e) => {
    e.preventDefault();
    guard(async () => {
      const ta = $<HTMLTextAreaElement>("prompt");
      if (!open || !ta.value.trim()) return;
      await call("session/send", { session_id: open.sessionId, agent_type: open.agentType, prompt: ta.value });
      ta.value = "";
      note("");
    });
  };
  $("prompt").onkeydown = (e) => {
    if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) $<HTMLFormElement>("composer").requestSubmit();
  };
  $("stop").onclick = () =>
    guard(async () => {
      if (open) await call("session/stop", { session_id: open.sessionId, agent_type: open.agentType });
    });
  $("transcript").onscroll = () => {
    if ($("transcript").scrollTop < 40) guard(loadOlder);
  };
}

async function start(): Promise<void> {
  const paired = await takePairing();
  if (paired === null) {
    showLogin("This console link was already used or has expired: paste the token that `cdevd token` prints.");
    return;
  }
  const token = paired ?? (sessionStorage.getItem(refreshKey) ? await renew() : null) ?? takeToken();
  if (token) connect(token);
  else showLogin();
}

wire();
void start();
