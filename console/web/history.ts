// Workspaces and their history: every runtime's sessions of the selected
// workspace in one list, newest first, each with its runtime's badge.
import { guard } from "./banners.js";
import { $, h, when } from "./dom.js";
import { call, describe } from "./rpc.js";
import { page, runtimeName, usable, type Workspace } from "./state.js";

export interface HistoryItem {
  session_id: string;
  agent_type: string;
  summary: string;
  message_count: number;
  last_updated: string;
  status: string;
}

// known keeps what history said of each session, for the session header.
export const known = new Map<string, HistoryItem>();

let onOpen: (item: HistoryItem) => void = () => {};

export function onHistoryOpen(f: (item: HistoryItem) => void): void {
  onOpen = f;
}

export async function loadWorkspaces(): Promise<void> {
  const res = await call("workspace/list");
  page.workspaces = res.workspaces ?? [];
  const ul = $("workspaces");
  ul.replaceChildren();
  for (const w of page.workspaces) {
    const pick = h("button", { class: "ws-open", type: "button", title: w.path }, w.name);
    pick.onclick = () => guard("Open workspace", () => selectWorkspace(w));
    const rm = h("button", { class: "ws-remove", type: "button", "aria-label": "remove " + w.name }, "×");
    rm.onclick = () =>
      guard("Remove workspace", async () => {
        await call("workspace/remove", { workspace_id: w.id });
        if (page.selected?.id === w.id) {
          page.selected = null;
          $("ws-pane").hidden = true;
        }
        await loadWorkspaces();
      });
    ul.append(h("li", { class: "ws" + (page.selected?.id === w.id ? " selected" : ""), "data-id": w.id }, pick, rm));
  }
  if (page.selected) {
    const again = page.workspaces.find((w) => w.id === page.selected!.id);
    if (again) await selectWorkspace(again);
  }
}

export async function selectWorkspace(w: Workspace): Promise<void> {
  page.selected = w;
  for (const li of $("workspaces").children) li.classList.toggle("selected", (li as HTMLElement).dataset.id === w.id);
  $("ws-title").textContent = w.name;
  $("ws-pane").hidden = false;
  // Subscribed, the page hears of sessions changing (terminal ones too).
  await call("workspace/subscribe", { workspace_id: w.id });
  await loadHistory();
}

// loadHistory asks every runtime that keeps history at once; one that
// fails says so in the list without hiding the others' sessions.
export async function loadHistory(): Promise<void> {
  const ws = page.selected;
  if (!ws) return;
  const sources = page.runtimes.filter((r) => usable(r) && r.supportsHistory !== false);
  const answers = await Promise.all(
    sources.map((r) =>
      call("workspace/session/history", { workspace_id: ws.id, agent_type: r.id, limit: 50 }).then(
        (res) => ({ runtime: r.id, sessions: (res.sessions ?? []) as HistoryItem[], error: "" }),
        (e: unknown) => ({ runtime: r.id, sessions: [] as HistoryItem[], error: describe(e) }),
      ),
    ),
  );
  if (page.selected !== ws) return;
  const all: HistoryItem[] = [];
  for (const a of answers) for (const s of a.sessions) all.push({ ...s, agent_type: s.agent_type || a.runtime });
  all.sort((a, b) => Date.parse(b.last_updated) - Date.parse(a.last_updated));
  const ul = $("history");
  ul.replaceChildren();
  for (const a of answers) if (a.error) ul.append(h("li", { class: "hist-error" }, `${runtimeName(a.runtime)}: ${a.error}`));
  for (const s of all) {
    known.set(s.session_id, s);
    const li = h(
      "li",
      { class: "hist" + (page.open?.sessionId === s.session_id ? " current" : ""), "data-session": s.session_id, "data-runtime": s.agent_type, tabindex: "0" },
      h("div", { class: "hist-top" }, h("span", { class: "badge rt-" + s.agent_type }, runtimeName(s.agent_type)),
        h("time", { datetime: s.last_updated }, when(s.last_updated))),
      h("div", { class: "summary" }, s.summary || "(no summary)"),
      h("div", { class: "meta" }, `${s.message_count} messages · ${s.status}`),
    );
    li.onclick = () => onOpen(s);
    li.onkeydown = (e) => {
      if (e.key === "Enter") onOpen(s);
    };
    ul.append(li);
  }
  if (!all.length) ul.append(h("li", { class: "hist-none" }, "No sessions yet."));
}

let historyTimer: ReturnType<typeof setTimeout> | null = null;

// Several updates in a burst (a turn streaming) reload the list once.
export function historySoon(): void {
  if (historyTimer) return;
  historyTimer = setTimeout(() => {
    historyTimer = null;
    guard("Load history", loadHistory);
  }, 300);
}
