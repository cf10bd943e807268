// The console page's entry: the token, the connection and the events,
// and the wiring of the page's controls. Drawing lives in the modules:
// history.ts (workspaces, one history), session.ts (the session pane),
// transcript.ts (messages), tools.ts (tool calls), markdown.ts (answers),
// prompts.ts, start.ts, banners.ts. Everything about the protocol is in
// the TypeScript client package (clients/ts), bundled in by esbuild.
import {
  CdevdClient,
  ConnectionError,
  browserSocket,
  type ConnState,
  type InitializeResult,
  type ServerNotification,
} from "../../clients/ts/src/index.js";
import { focusOpen, setupPresence } from "./presence.js";
import { noticeEvent, setupPush, takeClicked } from "./push.js";

import { setupAttach, takeAttachments } from "./attach.js";
import { clearBanner, guard, showBanner } from "./banners.js";
import { $, h } from "./dom.js";
import { historySoon, loadHistory, loadWorkspaces, onHistoryOpen, selectWorkspace } from "./history.js";
import { warmUp } from "./markdown.js";
import { prompt, resolved } from "./prompts.js";
import { renderQueue } from "./queue.js";
import { call, client, setClient } from "./rpc.js";
import { configure, renderConfigureEfforts, renderStartEfforts } from "./models.js";
import { backToList, header, note, openSession, setState } from "./session.js";
import { renderModes, renderStartChoices, start } from "./start.js";
import { page } from "./state.js";
import { showContext, showLimits } from "./usage.js";
import { closeDevices, openDevices, pair } from "./devices.js";
import { paired, renew, takePairing, tokenKey } from "./pairing.js";
import { cutDrafts, delta, endDrafts, message, onTranscriptScroll, reloadTranscript } from "./transcript.js";
import { reviewEvent, wireReview } from "./review.js";
import { turnDiffEvent } from "./turndiff.js";


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

function showLogin(msg?: string): void {
  $("app").hidden = true;
  $("login").hidden = false;
  if (msg) $("login-msg").textContent = msg;
  $<HTMLInputElement>("token-input").focus();
}

function connect(token: string): void {
  client()?.close();
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
      if (r.gap && page.open && page.open.sessionId === r.sessionId) guard("Reload transcript", reloadTranscript);
    },
    serverUp: () =>
      fetch("/healthz", { cache: "no-store" })
        .then((r) => r.ok)
        .catch(() => false),
  });
  setClient(c);
  setupPush({
    call: (method, params) => {
      const now = client();
      return now ? (now.call as any)(method, params) : Promise.reject(new Error("not connected"));
    },
    open: (w, s, a) => guard("Open session", () => openSession(w, s, a, false)),
  });
  const attempt = () =>
    c.connect().catch((e: unknown) => {
      if (client() !== c) return;
      if (e instanceof ConnectionError && e.reason === "refused") return refused();
      // Not there yet (down, restarting): the package reconnects only
      // after a first success, so the page tries again itself.
      onState({ kind: "lost", error: e as Error, retryInMs: 2000 });
      setTimeout(() => client() === c && attempt(), 2000);
    });
  attempt();
}

function refused(): void {
  client()?.close();
  if (paired()) {
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
      clearBanner("connection");
      onOpen(s.init);
      break;
    case "lost":
      c.textContent = "connection lost";
      c.classList.add("lost");
      showBanner("connection", `Connection lost: reconnecting in ${Math.ceil(s.retryInMs / 1000)} s`);
      break;
    case "closed":
      // A token refused on a reconnect (rotated meanwhile) closes the client.
      if (s.error instanceof ConnectionError && s.error.reason === "refused") return refused();
      c.textContent = "closed";
  }
}

function onOpen(init: InitializeResult): void {
  $("server").textContent = `${init.serverInfo.version}`;
  if ($("devices").hidden) $("app").hidden = false;
  // A watch device may read but not act: the server refuses its acting
  // calls anyway, the page does not offer them.
  const watch = init.device?.scope === "watch";
  document.body.classList.toggle("watch", watch);
  $("devices-open").hidden = watch;
  page.runtimes = init.capabilities.runtimeRegistry.runtimes;
  page.defaultRuntime = init.capabilities.runtimeRegistry.defaultRuntime;
  renderRuntimes();
  renderStartChoices();
  setupPresence();
  focusOpen(); // a new connection has no presence yet
  guard("Load workspaces", async () => {
    await loadWorkspaces();
    await openClicked();
  });
}

// openClicked opens the session a notification's click asked for (the
// address's fragment), once the console is connected.
async function openClicked(): Promise<void> {
  const t = takeClicked();
  if (!t) return;
  const w = page.workspaces.find((x) => x.id === t.workspaceId);
  if (w) await selectWorkspace(w);
  await openSession(t.workspaceId, t.sessionId, t.agentType, false);
}

function renderRuntimes(): void {
  const ul = $("runtimes");
  ul.replaceChildren();
  for (const r of page.runtimes) {
    const a = r.availability ?? { installed: false };
    ul.append(
      h(
        "li",
        { class: "runtime", "data-id": r.id },
        h("span", { class: "badge rt-" + r.id }, r.displayName ?? r.id),
        h("span", { class: "status " + r.status }, r.status),
        h("span", { class: "version" }, a.version ?? ""),
        a.reason ? h("span", { class: "reason" }, a.reason) : null,
      ),
    );
  }
}

// ---- events ----

function onEvent(n: ServerNotification): void {
  // Rendering reads fields loosely (a newer server may send more).
  const p: any = n.params;
  const type = n.method.slice("event/".length);
  noticeEvent(type, p);
  if (type === "session_updated" || type === "session_start" || type === "session_end" || type === "session_stopped") {
    if (page.selected && p.workspace_id === page.selected.id) historySoon();
  }
  reviewEvent(type, p);
  if (!page.open || p.session_id !== page.open.sessionId) return;
  switch (type) {
    case "turn_diff":
      turnDiffEvent(p);
      break;
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
    case "pty_permission_resolved":
      resolved(p);
      break;
    case "context_usage":
      showContext(p);
      break;
    case "rate_limits":
      showLimits(p.windows);
      break;
    case "pty_state":
      setState(p.state);
      break;
    case "queue_changed":
      renderQueue(p);
      break;
    case "turn_completed":
      endDrafts();
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
    guard("Add workspace", async () => {
      const path = $<HTMLInputElement>("ws-path").value.trim();
      const w = await call("workspace/add", { path });
      $<HTMLInputElement>("ws-path").value = "";
      page.selected = w;
      await loadWorkspaces();
    });
  };
  onHistoryOpen((s) => guard("Open session", () => openSession(page.selected!.id, s.session_id, s.agent_type, false)));
  $("history-refresh").onclick = () => guard("Load history", loadHistory);
  $("start-runtime").onchange = renderModes;
  $("start-model").oninput = renderStartEfforts; // typing
  $("start-model").onchange = renderStartEfforts; // a choice from the list
  $("cfg-model").onchange = renderConfigureEfforts;
  $("configure").onsubmit = (e) => {
    e.preventDefault();
    const o = page.open;
    if (!o) return;
    configure(o.sessionId, (model, msg) => {
      if (page.open !== o) return;
      if (model) header(o.sessionId, o.agentType, $("session-title").textContent ?? "", model);
      note(msg);
    });
  };
  $("start-form").onsubmit = (e) => {
    e.preventDefault();
    start();
  };
  $("back").onclick = backToList;
  $("composer").onsubmit = (e) => {
    e.preventDefault();
    guard("Send", async () => {
      const ta = $<HTMLTextAreaElement>("prompt");
      if (!page.open || !ta.value.trim()) return;
      const atts = takeAttachments();
      const res = await call("session/send", {
        session_id: page.open.sessionId,
        agent_type: page.open.agentType,
        prompt: ta.value,
        attachments: atts.attachments,
      });
      atts.sent();
      ta.value = "";
      // A prompt sent while the agent works waits in the queue below.
      note(res.status === "queued" ? `Queued (number ${res.position ?? 1} in line): it runs when the agent is done.` : "");
    });
  };
  setupAttach();
  $("prompt").onkeydown = (e) => {
    if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) $<HTMLFormElement>("composer").requestSubmit();
  };
  $("stop").onclick = () =>
    guard("Stop", async () => {
      if (page.open) await call("session/stop", { session_id: page.open.sessionId, agent_type: page.open.agentType });
    });
  $("devices-open").onclick = openDevices;
  $("devices-close").onclick = closeDevices;
  $("pair-form").onsubmit = (e) => {
    e.preventDefault();
    guard("Pair", pair);
  };
  $("transcript").onscroll = () => guard("Load older messages", onTranscriptScroll);
  wireReview();
}

wire();
warmUp();
void begin();

// begin connects with what the page was opened with: a pairing link, a
// paired console's refresh token, or the owner's token.
async function begin(): Promise<void> {
  const pairedNow = await takePairing();
  if (pairedNow === null) {
    showLogin("This console link was already used or has expired: paste the token that `cdevd token` prints.");
    return;
  }
  const token = pairedNow ?? (paired() ? await renew() : null) ?? takeToken();
  if (token) connect(token);
  else showLogin();
}
