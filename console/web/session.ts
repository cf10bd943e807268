// The session pane: its header (summary, runtime, model, state), note and
// the navigation between the list and it (on a phone one shows at a time).
import { redrawAttachments } from "./attach.js";
import { $ } from "./dom.js";
import { loadUsage, showContext, showLimits } from "./usage.js";
import { known } from "./history.js";
import { renderConfigure } from "./models.js";
import { focusOpen } from "./presence.js";
import { call, client } from "./rpc.js";
import { page, runtimeName } from "./state.js";
import { loadQueue, renderQueue } from "./queue.js";
import { loadOlder, newOpen } from "./transcript.js";
import { loadTurns, resetTurns } from "./turndiff.js";
import { guard } from "./banners.js";

export function setState(s: string): void {
  const el = $("state");
  el.textContent = s;
  el.className = "state " + s;
}

export function note(msg: string, crashed = false): void {
  const n = $("session-note");
  n.textContent = msg;
  n.hidden = msg === "";
  n.classList.toggle("crashed", crashed);
}

// header shows what the session is about; the id stays in reach as the
// title's tooltip and in data-session.
export function header(sessionId: string, agentType: string, summary: string, model = ""): void {
  $("session").dataset.runtime = agentType;
  $("session-title").textContent = summary || "New session";
  $("session-title").title = sessionId;
  $("session-runtime").textContent = runtimeName(agentType);
  $("session-runtime").className = "badge rt-" + agentType;
  $("session-model").textContent = model;
  $("session-model").hidden = model === "";
}

// showSession brings the session pane into view: on a phone it takes the
// screen (the list comes back with the back button).
export function showSession(): void {
  $("session").hidden = false;
  $("app").classList.remove("in-review"); // the session takes the review pane's place
  $("app").classList.add("in-session");
  $("session").scrollIntoView({ block: "start" });
}

export function backToList(): void {
  $("app").classList.remove("in-session");
  $("side").scrollIntoView({ block: "start" });
}

function reset(sessionId: string): void {
  const prev = page.open?.sessionId;
  if (prev && prev !== sessionId) client()?.unwatch(prev).catch(() => {});
  $("session").dataset.session = sessionId;
  $("session").classList.remove("failed");
  $("transcript").replaceChildren();
  $("prompts").replaceChildren();
  resetTurns(sessionId);
  renderQueue({});
  note("");
  setState("idle");
  for (const li of $("history").querySelectorAll<HTMLElement>(".hist")) li.classList.toggle("current", li.dataset.session === sessionId);
  showContext(null); // the meters wait for this session's own figures
  showLimits(null);
}

export async function openSession(workspaceId: string, sessionId: string, agentType: string, started: boolean, model = "", effort = ""): Promise<void> {
  // Watch first, then read: whatever happens in between arrives as an
  // event, and ids keep it from showing twice. The watch is asked before
  // the pane is drawn, which then costs no time of its own: its layout
  // runs while the request is on its way.
  const watched = started ? null : client()!.watch({ workspace_id: workspaceId, session_id: sessionId, agent_type: agentType });
  reset(sessionId);
  const o = newOpen(workspaceId, sessionId, agentType);
  page.open = o;
  redrawAttachments();
  header(sessionId, agentType, known.get(sessionId)?.summary ?? "", model);
  renderConfigure(agentType, model, effort);
  showSession();
  if (!watched) {
    client()!.track(workspaceId, sessionId, agentType);
    o.hasMore = false;
    focusOpen();
    void loadUsage(agentType, null);
    return;
  }
  await watched;
  // The newest messages first: the turns, the presence and the queue are
  // asked for once they are drawn, so that cdevd reads the transcript with
  // nothing else to do and the page draws it with nothing else to parse.
  await loadOlder();
  if (page.open === o) focusOpen();
  void guard("Load turns", () => loadTurns(sessionId));
  await loadQueue();
  try {
    const st = await call("session/state", { session_id: sessionId });
    if (page.open === o) {
      setState(st.is_running ? st.activity ?? "idle" : st.status);
      if (st.model) header(sessionId, agentType, known.get(sessionId)?.summary ?? "", st.model);
      renderConfigure(agentType, st.model ?? "", st.effort ?? "");
    }
    if (page.open === o) await loadUsage(agentType, st.context);
  } catch {
    if (page.open === o) setState("historical");
  }
}

// failedStart shows a start that failed as failed, in place of whatever
// session was open: nothing on screen may look like it started.
export function failedStart(agentType: string, reason: string): void {
  reset("");
  delete $("session").dataset.session;
  page.open = null;
  redrawAttachments();
  header("", agentType, "Session did not start");
  $("configure").hidden = true;
  $("session").classList.add("failed");
  note(`Could not start ${runtimeName(agentType)}: ${reason}`, true);
  setState("error");
  showSession();
}
