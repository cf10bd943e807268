// ../clients/ts/src/methods.gen.ts
var eventTable = {
  "event/claude_message": "ClaudeMessageEvent",
  "event/message_delta": "MessageDeltaEvent",
  "event/pty_permission": "PermissionEvent",
  "event/pty_permission_resolved": "PermissionResolvedEvent",
  "event/question": "QuestionEvent",
  "event/pty_state": "StateEvent",
  "event/turn_completed": "TurnCompletedEvent",
  "event/error": "ErrorEvent",
  "event/session_start": "SessionStartEvent",
  "event/session_end": "SessionEndEvent",
  "event/session_stopped": "SessionEndEvent",
  "event/session_updated": "SessionUpdatedEvent",
  "event/heartbeat": "HeartbeatEvent"
};

// ../clients/ts/src/wire.ts
var RpcError = class extends Error {
  constructor(method, code, message2, data) {
    super(`${method}: ${message2} (${code})`);
    this.method = method;
    this.code = code;
    this.data = data;
    this.name = "RpcError";
  }
  method;
  code;
  data;
  /** Narrows data to the schema of code's data. */
  is(code) {
    return this.code === code;
  }
};
var ConnectionError = class extends Error {
  constructor(reason, message2) {
    super(message2);
    this.reason = reason;
    this.name = "ConnectionError";
  }
  reason;
};
function decodeFrame(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return new ConnectionError("protocol", `the server sent a frame that is not JSON: ${text.slice(0, 80)}`);
  }
  const out = [];
  for (const m of Array.isArray(msg) ? msg : [msg]) {
    if (m === null || typeof m !== "object" || m.jsonrpc !== "2.0") {
      return new ConnectionError("protocol", `the server sent a frame that is not JSON-RPC 2.0: ${text.slice(0, 80)}`);
    }
    if (typeof m.method === "string") {
      if (m.method.startsWith("event/")) {
        out.push({ kind: "event", known: Object.hasOwn(eventTable, m.method), event: m });
      }
      continue;
    }
    if (!("result" in m) && !("error" in m)) continue;
    if ("error" in m && (m.error === null || typeof m.error !== "object" || typeof m.error.code !== "number")) {
      return new ConnectionError("protocol", `the server sent an error answer without a code: ${text.slice(0, 80)}`);
    }
    out.push({ kind: "answer", id: m.id, result: m.result, error: m.error });
  }
  return out;
}
function answerOf(method, a) {
  if (a.error) return { kind: "error", method, error: new RpcError(method, a.error.code, a.error.message, a.error.data) };
  return { kind: "result", method, result: a.result };
}
function encodeRequest(id, method, params) {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

// ../clients/ts/src/client.ts
var browserSocket = (url, token) => new globalThis.WebSocket(url, ["cdevd", "cdevd.bearer." + token]);
var OPEN = 1;
function detach(ws) {
  ws.onclose = ws.onmessage = ws.onopen = null;
  ws.onerror = () => {
  };
}
var CdevdClient = class {
  constructor(opts) {
    this.opts = opts;
  }
  opts;
  ws = null;
  nextId = 1;
  pending = /* @__PURE__ */ new Map();
  watches = /* @__PURE__ */ new Map();
  stopped = true;
  attempt = 0;
  retryTimer = null;
  beatTimer = null;
  lastHeard = 0;
  initialized = false;
  epoch = "";
  // Settles the open in progress, if any: close() must not leave it hanging.
  abortOpen = null;
  /**
   * Connects and initializes. Rejects with a ConnectionError (refused,
   * closed, timeout, protocol) or an RpcError if initialize fails; once it
   * has resolved, losses reconnect by themselves (see onState).
   */
  connect() {
    this.stopped = false;
    return this.open();
  }
  /** Closes for good: pending calls reject, no reconnect, no timers left. */
  close() {
    if (this.stopped && !this.ws) return;
    this.stopped = true;
    this.clearTimers();
    const ws = this.ws;
    this.ws = null;
    const closed = new ConnectionError("closed", "client closed");
    this.failPending(closed);
    this.abortOpen?.(closed);
    if (ws) {
      detach(ws);
      ws.close(1e3, "bye");
    }
    this.opts.onState?.({ kind: "closed" });
  }
  /** Calls method; rejects with RpcError on an error answer, ConnectionError when not connected. */
  async call(method, ...args) {
    if (!this.initialized) throw new ConnectionError("not-connected", `${method}: not connected`);
    const params = args[0] ?? {};
    const onResult = method === "session/start" ? (r) => this.track(r.workspace_id, r.session_id, r.agent_type) : void 0;
    return this.send(method, params, onResult);
  }
  /** Watches a session; reconnects watch it again from the last event delivered. */
  async watch(params) {
    if (!this.initialized) throw new ConnectionError("not-connected", "workspace/session/watch: not connected");
    return this.send("workspace/session/watch", params, (r) => {
      const w = this.watches.get(params.session_id);
      const res = r;
      this.watches.set(params.session_id, {
        workspaceId: params.workspace_id,
        agentType: params.agent_type,
        lastSeq: Math.max(w?.lastSeq ?? 0, res.last_seq),
        epoch: res.epoch
      });
    });
  }
  async unwatch(sessionId) {
    const w = this.watches.get(sessionId);
    this.watches.delete(sessionId);
    if (w) await this.call("workspace/session/unwatch", { session_id: sessionId, agent_type: w.agentType });
  }
  /** Counts a session as watched (from lastSeq) without a watch call. */
  track(workspaceId, sessionId, agentType, lastSeq = 0) {
    if (!this.watches.has(sessionId)) this.watches.set(sessionId, { workspaceId, agentType, lastSeq, epoch: this.epoch });
  }
  open() {
    this.opts.onState?.({ kind: "connecting", attempt: this.attempt });
    let ws;
    try {
      ws = (this.opts.socket ?? browserSocket)(this.opts.url, this.opts.token);
    } catch (e) {
      return Promise.reject(new ConnectionError("refused", `cannot open ${this.opts.url}: ${e.message}`));
    }
    this.ws = ws;
    this.initialized = false;
    let settled = false;
    let opened = false;
    let lastError = "";
    return new Promise((resolve, reject) => {
      const fail = (e) => {
        clearTimeout(initTimer);
        if (this.abortOpen === fail) this.abortOpen = null;
        if (settled) return;
        settled = true;
        reject(e);
      };
      this.abortOpen = fail;
      const initTimer = setTimeout(() => {
        fail(new ConnectionError("timeout", `${this.opts.url}: no answer to initialize in ${this.initTimeout()} ms`));
        this.drop(ws, null);
      }, this.initTimeout());
      ws.onerror = (ev) => {
        lastError = ev?.message ?? ev?.error?.message ?? "";
      };
      ws.onmessage = (m) => {
        const err = this.receive(String(m.data));
        if (err) {
          fail(err);
          this.drop(ws, err);
        }
      };
      ws.onclose = (ev) => {
        clearTimeout(initTimer);
        const why = lastError || `code ${ev.code}${String(ev.reason) ? " " + String(ev.reason) : ""}`;
        const err = this.initialized ? new ConnectionError("closed", `connection lost (${why})`) : new ConnectionError(/\b40[13]\b/.test(why) ? "refused" : "closed", `${this.opts.url}: closed before initialize answered (${why})`);
        const up = this.opts.serverUp;
        if (opened || err.reason === "refused" || !up) {
          fail(err);
          this.drop(ws, err);
          return;
        }
        void up().then(
          (yes) => {
            const e = yes ? new ConnectionError("refused", `${this.opts.url}: the token was refused (the server is up)`) : err;
            fail(e);
            this.drop(ws, e);
          },
          () => {
            fail(err);
            this.drop(ws, err);
          }
        );
      };
      ws.onopen = () => {
        opened = true;
        this.heard();
        this.send("initialize", {
          protocolVersion: "1.0",
          clientInfo: { name: this.opts.clientName ?? "cdevd-ts", version: this.opts.clientVersion ?? "0" }
        }).then(
          (init) => {
            clearTimeout(initTimer);
            if (this.abortOpen === fail) this.abortOpen = null;
            if (settled) return;
            settled = true;
            this.initialized = true;
            this.attempt = 0;
            const restarted = this.epoch !== "" && this.epoch !== init.epoch;
            this.epoch = init.epoch;
            this.opts.onState?.({ kind: "open", init });
            resolve(init);
            void this.rewatch(restarted);
          },
          (e) => {
            clearTimeout(initTimer);
            fail(e);
            this.drop(ws, null);
          }
        );
      };
    });
  }
  initTimeout() {
    return this.opts.initializeTimeoutMs ?? 1e4;
  }
  // Forgets ws; after a connection that had initialized, reconnects.
  drop(ws, err) {
    if (this.ws !== ws) return;
    const wasOpen = this.initialized;
    this.ws = null;
    this.initialized = false;
    detach(ws);
    try {
      ws.close();
    } catch {
    }
    if (this.beatTimer) clearTimeout(this.beatTimer);
    this.beatTimer = null;
    const e = err ?? new ConnectionError("closed", "connection lost");
    this.failPending(e);
    if (this.stopped) return;
    if (!wasOpen) return;
    if (this.opts.reconnect === false) {
      this.stopped = true;
      this.opts.onState?.({ kind: "closed", error: e });
      return;
    }
    this.scheduleRetry(e);
  }
  // One timer at a time; a failed attempt schedules the next, with more backoff.
  scheduleRetry(e) {
    const delay = Math.min(this.opts.maxBackoffMs ?? 5e3, 250 * 2 ** this.attempt);
    this.attempt++;
    this.opts.onState?.({ kind: "lost", error: e, retryInMs: delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.stopped) return;
      this.open().catch((e2) => {
        if (this.stopped) return;
        if (e2 instanceof ConnectionError && e2.reason === "refused") {
          this.stopped = true;
          this.opts.onState?.({ kind: "closed", error: e2 });
          return;
        }
        this.scheduleRetry(e2);
      });
    }, delay);
  }
  failPending(e) {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(e);
  }
  clearTimers() {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.beatTimer) clearTimeout(this.beatTimer);
    this.retryTimer = this.beatTimer = null;
  }
  // The heartbeat timer is armed once per timeout, not per frame: when it
  // fires it compares with the last frame heard and re-arms for the rest.
  heard() {
    this.lastHeard = Date.now();
    if (this.beatTimer) return;
    const limit = this.opts.heartbeatTimeoutMs ?? 45e3;
    const check = () => {
      this.beatTimer = null;
      const ws = this.ws;
      if (!ws) return;
      const left = this.lastHeard + limit - Date.now();
      if (left > 0) {
        this.beatTimer = setTimeout(check, left);
        return;
      }
      this.drop(ws, new ConnectionError("timeout", `no frame from the server in ${limit} ms (heartbeat)`));
    };
    this.beatTimer = setTimeout(check, limit);
  }
  send(method, params, onResult) {
    const ws = this.ws;
    if (!ws || ws.readyState !== OPEN) return Promise.reject(new ConnectionError("not-connected", `${method}: not connected`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, onResult, resolve, reject });
      ws.send(encodeRequest(id, method, params));
    });
  }
  // Returns an error when the frame is not JSON-RPC: the connection is then
  // dropped, since a server that says something else cannot be trusted on.
  receive(text) {
    this.heard();
    const msgs = decodeFrame(text);
    if (msgs instanceof Error) return msgs;
    for (const m of msgs) {
      if (m.kind === "event") {
        this.deliver(m.event);
        continue;
      }
      const p = this.pending.get(m.id);
      if (!p) continue;
      this.pending.delete(m.id);
      const a = answerOf(p.method, m);
      if (a.kind === "error") p.reject(a.error);
      else {
        p.onResult?.(a.result);
        p.resolve(a.result);
      }
    }
    return null;
  }
  // After a reconnect, every watched session is watched again from the last
  // event delivered: the server replays what was missed, or says gap.
  async rewatch(restarted) {
    for (const [sessionId, w] of this.watches) {
      if (restarted) w.lastSeq = 0;
      try {
        const res = await this.send("workspace/session/watch", {
          workspace_id: w.workspaceId,
          session_id: sessionId,
          agent_type: w.agentType,
          since_seq: w.lastSeq,
          epoch: w.epoch || void 0
        });
        w.epoch = res.epoch;
        if (res.gap || restarted) w.lastSeq = Math.max(w.lastSeq, res.last_seq);
        this.opts.onRewatch?.({ sessionId, gap: res.gap || restarted, replayed: res.replayed });
      } catch {
      }
    }
  }
  // Session events carry seq: one already seen (a replay overlapping what
  // arrived live) is dropped, so each is delivered once and in order.
  deliver(n) {
    const p = n.params;
    if (typeof p.session_id === "string" && typeof p.seq === "number") {
      const w = this.watches.get(p.session_id);
      if (w) {
        if (p.seq <= w.lastSeq) return;
        w.lastSeq = p.seq;
      }
    }
    this.opts.onEvent?.(n);
  }
};

// web/app.ts
var tokenKey = "cdevd.token";
var refreshKey = "cdevd.refresh";
var pageSize = 50;
var $ = (id) => document.getElementById(id);
function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const k of kids) if (k !== null) el.append(k);
  return el;
}
var client = null;
var runtimes = [];
var workspaces = [];
var selected = null;
var open = null;
function showBanner(msg) {
  const b = $("banner");
  b.textContent = msg;
  b.hidden = msg === "";
}
function describe(e) {
  if (e instanceof RpcError) {
    const d = e.data ?? {};
    const reason = typeof d.reason === "string" ? `: ${d.reason}` : "";
    return `${e.message}${reason}`;
  }
  return e instanceof Error ? e.message : String(e);
}
async function guard(f) {
  try {
    await f();
  } catch (e) {
    showBanner(describe(e));
  }
}
function call(method, ...args) {
  if (!client) return Promise.reject(new Error("not connected"));
  return client.call(method, ...args);
}
function takeToken() {
  const frag = new URLSearchParams(location.hash.slice(1));
  const t = frag.get("token");
  if (t) {
    sessionStorage.setItem(tokenKey, t);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(tokenKey);
}
var refreshTimer;
function keepPair(p) {
  sessionStorage.setItem(tokenKey, p.access_token);
  sessionStorage.setItem(refreshKey, p.refresh_token);
  clearTimeout(refreshTimer);
  const ms = Math.max(5e3, Date.parse(p.access_token_expires_at) - Date.now() - 12e4);
  refreshTimer = setTimeout(() => void renew(), ms);
  return p.access_token;
}
async function postPair(path, body) {
  try {
    const r = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store"
    });
    return r.ok ? keepPair(await r.json()) : null;
  } catch {
    return null;
  }
}
async function renew() {
  const rt = sessionStorage.getItem(refreshKey);
  if (!rt) return null;
  const t = await postPair("/api/auth/refresh", { refresh_token: rt });
  if (!t) sessionStorage.removeItem(refreshKey);
  return t;
}
async function takePairing() {
  const frag = new URLSearchParams(location.hash.slice(1));
  const p = frag.get("pair");
  if (!p) return void 0;
  history.replaceState(null, "", location.pathname + location.search);
  return postPair("/api/auth/exchange", { pairing_token: p });
}
function showLogin(msg) {
  $("app").hidden = true;
  $("login").hidden = false;
  if (msg) $("login-msg").textContent = msg;
  $("token-input").focus();
}
function connect(token) {
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
    serverUp: () => fetch("/healthz", { cache: "no-store" }).then((r) => r.ok).catch(() => false)
  });
  client = c;
  const attempt = () => c.connect().catch((e) => {
    if (client !== c) return;
    if (e instanceof ConnectionError && e.reason === "refused") return refused();
    onState({ kind: "lost", error: e, retryInMs: 2e3 });
    setTimeout(() => client === c && attempt(), 2e3);
  });
  attempt();
}
function refused() {
  client?.close();
  if (sessionStorage.getItem(refreshKey)) {
    void renew().then((t) => t ? connect(t) : refused());
    return;
  }
  sessionStorage.removeItem(tokenKey);
  $("conn").textContent = "not connected";
  showLogin("The token was refused. Paste the token that `cdevd token` prints.");
  $("login").classList.add("refused");
}
function onState(s) {
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
      showBanner(`Connection lost: reconnecting in ${Math.ceil(s.retryInMs / 1e3)} s`);
      break;
    case "closed":
      if (s.error instanceof ConnectionError && s.error.reason === "refused") return refused();
      c.textContent = "closed";
  }
}
function onOpen(init) {
  $("server").textContent = `${init.serverInfo.name} ${init.serverInfo.version}`;
  $("app").hidden = false;
  runtimes = init.capabilities.runtimeRegistry.runtimes;
  renderRuntimes(init.capabilities.runtimeRegistry.defaultRuntime);
  guard(loadWorkspaces);
}
var usable = (r) => r.status !== "disabled";
function renderRuntimes(def) {
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
        a.reason ? h("span", { class: "reason" }, a.reason) : null
      )
    );
  }
  for (const id of ["start-runtime", "history-runtime"]) {
    const sel = $(id);
    sel.replaceChildren();
    for (const r of runtimes) {
      const o = h("option", { value: r.id }, r.displayName ?? r.id);
      if (id === "start-runtime" && !usable(r)) {
        o.disabled = true;
        o.textContent += ` (disabled: ${r.availability?.reason ?? "unavailable"})`;
      }
      sel.append(o);
    }
    const first = runtimes.find((r) => r.id === def && usable(r)) ?? runtimes.find(usable);
    if (first) sel.value = first.id;
  }
  $("start").disabled = !runtimes.some(usable);
}
async function loadWorkspaces() {
  const res = await call("workspace/list");
  workspaces = res.workspaces ?? [];
  const ul = $("workspaces");
  ul.replaceChildren();
  for (const w of workspaces) {
    const pick = h("button", { class: "ws-open", type: "button", title: w.path }, w.name);
    pick.onclick = () => guard(() => selectWorkspace(w));
    const rm = h("button", { class: "ws-remove", type: "button", "aria-label": "remove " + w.name }, "×");
    rm.onclick = () => guard(async () => {
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
    const again = workspaces.find((w) => w.id === selected.id);
    if (again) await selectWorkspace(again);
  }
}
async function selectWorkspace(w) {
  selected = w;
  for (const li of $("workspaces").children) li.classList.toggle("selected", li.dataset.id === w.id);
  $("ws-title").textContent = w.name;
  $("ws-pane").hidden = false;
  await call("workspace/subscribe", { workspace_id: w.id });
  await loadHistory();
}
async function loadHistory() {
  if (!selected) return;
  const agent = $("history-runtime").value;
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
    limit: pageSize
  });
  if (selected !== ws) return;
  ul.replaceChildren();
  for (const s of res.sessions ?? []) {
    const li = h(
      "li",
      { class: "hist", "data-session": s.session_id },
      h("div", { class: "summary" }, s.summary || "(no summary)"),
      h("div", { class: "meta" }, `${s.message_count} messages · ${s.status} · ${new Date(s.last_updated).toLocaleString()}`)
    );
    li.onclick = () => guard(() => openSession(ws.id, s.session_id, s.agent_type ?? agent, false));
    ul.append(li);
  }
  if (!ul.children.length) ul.append(h("li", { class: "hist-none" }, "No sessions yet."));
}
var historyTimer = null;
function historySoon() {
  if (historyTimer) return;
  historyTimer = setTimeout(() => {
    historyTimer = null;
    guard(loadHistory);
  }, 300);
}
async function openSession(workspaceId, sessionId, agentType, started) {
  if (open && open.sessionId !== sessionId && client) {
    const prev = open.sessionId;
    client.unwatch(prev).catch(() => {
    });
  }
  open = { workspaceId, sessionId, agentType, offset: 0, hasMore: true, loading: false, seen: /* @__PURE__ */ new Set() };
  $("session").hidden = false;
  $("session").dataset.session = sessionId;
  $("session-title").textContent = `${agentType} · ${sessionId}`;
  $("transcript").replaceChildren();
  $("prompts").replaceChildren();
  note("");
  setState("idle");
  if (started) {
    client.track(workspaceId, sessionId, agentType);
    open.hasMore = false;
    return;
  }
  await client.watch({ workspace_id: workspaceId, session_id: sessionId, agent_type: agentType });
  await loadOlder();
  try {
    const st = await call("session/state", { session_id: sessionId });
    setState(st.is_running ? st.activity ?? "idle" : st.status);
  } catch {
    setState("historical");
  }
}
async function reloadTranscript() {
  if (!open) return;
  open.offset = 0;
  open.hasMore = true;
  open.seen.clear();
  $("transcript").replaceChildren();
  await loadOlder();
}
async function loadOlder() {
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
      order: "desc"
    });
    if (open !== o) return;
    const msgs = res.messages ?? [];
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
function asText(c) {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((b) => typeof b === "string" ? b : b?.text ?? JSON.stringify(b)).join("\n");
  return c == null ? "" : JSON.stringify(c, null, 2);
}
function renderBlock(b) {
  switch (b?.type) {
    case "text":
      return h("div", { class: "text" }, b.text ?? "");
    case "thinking":
      return h("details", { class: "thinking" }, h("summary", {}, "thinking"), h("div", { class: "text" }, b.thinking ?? b.text ?? ""));
    case "tool_use":
      return h(
        "div",
        { class: "tool-use" },
        h("span", { class: "name" }, `${b.name}`),
        h("pre", {}, typeof b.input === "string" ? b.input : JSON.stringify(b.input, null, 2))
      );
    case "tool_result":
      return h(
        "details",
        { class: "tool-result" + (b.is_error ? " error" : ""), open: "" },
        h("summary", {}, b.is_error ? "tool error" : "tool result"),
        h("pre", {}, asText(b.content))
      );
    case "image":
      return h("div", { class: "text" }, "[image]");
    default:
      return h("pre", {}, JSON.stringify(b, null, 2));
  }
}
function renderMessage(m) {
  const el = h("div", { class: "msg " + (m.type ?? m.message?.role ?? ""), "data-id": m.id ?? "" });
  const content = m.message?.content;
  if (typeof content === "string") el.append(h("div", { class: "text" }, content));
  else for (const b of content ?? []) el.append(renderBlock(b));
  return el;
}
function stuckToBottom() {
  const t = $("transcript");
  return t.scrollHeight - t.scrollTop - t.clientHeight < 60;
}
function append(el) {
  const t = $("transcript");
  const stick = stuckToBottom();
  t.append(el);
  if (stick) t.scrollTop = t.scrollHeight;
}
function setState(s) {
  const el = $("state");
  el.textContent = s;
  el.className = "state " + s;
}
function note(msg, crashed = false) {
  const n = $("session-note");
  n.textContent = msg;
  n.hidden = msg === "";
  n.classList.toggle("crashed", crashed);
}
function delta(p) {
  const t = $("transcript");
  t.dataset.deltas = String(Number(t.dataset.deltas ?? 0) + 1);
  let el = t.querySelector(`.msg.streaming[data-id="${CSS.escape(p.message_id ?? "")}"]`);
  if (!el) {
    el = h("div", { class: "msg assistant streaming", "data-id": p.message_id ?? "" });
    append(el);
  }
  const cls = p.phase === "thinking" ? "thinking" : "text";
  let part = el.lastElementChild;
  if (!part || !part.classList.contains("part-" + cls)) {
    part = cls === "thinking" ? h("details", { class: "thinking part-thinking" }, h("summary", {}, "thinking"), h("div", { class: "text" })) : h("div", { class: "text part-text" });
    el.append(part);
  }
  const target = cls === "thinking" ? part.lastElementChild : part;
  target.textContent += p.text ?? "";
  if (stuckToBottom()) t.scrollTop = t.scrollHeight;
}
function message(p) {
  const o = open;
  const t = $("transcript");
  if (p.type === "assistant") {
    const draft = t.querySelector(`.msg.streaming[data-id="${CSS.escape(p.id ?? "")}"]`) ?? t.querySelector(".msg.streaming");
    draft?.remove();
  }
  if (p.id && o.seen.has(p.id)) return;
  if (p.id) o.seen.add(p.id);
  o.offset++;
  append(renderMessage(p));
}
function cutDrafts() {
  for (const d of $("transcript").querySelectorAll(".msg.streaming")) {
    d.classList.remove("streaming");
    d.classList.add("interrupted");
  }
}
function prompt(p, kind) {
  const box = $("prompts");
  if (box.querySelector(`[data-request="${CSS.escape(p.request_id)}"]`)) return;
  const card = h("div", { class: "prompt " + kind, "data-request": p.request_id });
  const answer = (response) => guard(async () => {
    await call("session/respond", {
      session_id: open.sessionId,
      agent_type: open.agentType,
      type: kind,
      response,
      request_id: p.request_id
    });
  });
  if (kind === "permission") {
    card.append(
      h("div", { class: "title" }, `${p.tool_name} wants to run: ${p.description || p.type}`),
      h("pre", { class: "target" }, p.target ?? "")
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
    const input = h("input", { placeholder: "or type an answer" });
    form.append(input, h("button", { type: "submit" }, "Answer"));
    form.onsubmit = (e) => {
      e.preventDefault();
      if (input.value) answer(input.value);
    };
    card.append(form);
  }
  box.append(card);
}
function onEvent(n) {
  const p = n.params;
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
      const crashed = p.exit_code !== void 0 && p.exit_code !== 0;
      note(crashed ? `Session crashed: ${p.reason} (exit code ${p.exit_code})` : `Session ended: ${p.reason}`, crashed);
      setState(crashed ? "error" : "stopped");
      cutDrafts();
      $("prompts").replaceChildren();
      break;
    }
  }
}
function wire() {
  $("token-form").onsubmit = (e) => {
    e.preventDefault();
    const t = $("token-input").value.trim();
    if (!t) return;
    sessionStorage.setItem(tokenKey, t);
    $("login").classList.remove("refused");
    connect(t);
  };
  $("ws-add").onsubmit = (e) => {
    e.preventDefault();
    guard(async () => {
      const path = $("ws-path").value.trim();
      const w = await call("workspace/add", { path });
      $("ws-path").value = "";
      selected = w;
      await loadWorkspaces();
    });
  };
  $("history-runtime").onchange = () => guard(loadHistory);
  $("start").onclick = () => guard(async () => {
    if (!selected) return;
    const agent = $("start-runtime").value;
    const res = await call("session/start", { workspace_id: selected.id, agent_type: agent });
    await openSession(selected.id, res.session_id, res.agent_type ?? agent, true);
    $("prompt").focus();
  });
  $("composer").onsubmit = (e) => {
    e.preventDefault();
    guard(async () => {
      const ta = $("prompt");
      if (!open || !ta.value.trim()) return;
      await call("session/send", { session_id: open.sessionId, agent_type: open.agentType, prompt: ta.value });
      ta.value = "";
      note("");
    });
  };
  $("prompt").onkeydown = (e) => {
    if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) $("composer").requestSubmit();
  };
  $("stop").onclick = () => guard(async () => {
    if (open) await call("session/stop", { session_id: open.sessionId, agent_type: open.agentType });
  });
  $("transcript").onscroll = () => {
    if ($("transcript").scrollTop < 40) guard(loadOlder);
  };
}
async function start() {
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
