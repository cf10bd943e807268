// The review pane: a workspace's Changes (changes.ts) and Files
// (files.ts), in the place of the session pane. On a phone it takes the
// screen as a session does, and "‹ Back" returns to the list.
import { guard } from "./banners.js";
import { $ } from "./dom.js";
import { changesEvent, loadChanges, wireChanges } from "./changes.js";
import { loadFiles, wireFiles } from "./files.js";
import { backToList } from "./session.js";
import { page } from "./state.js";

export type Tab = "changes" | "files";

// shown is the workspace and tab on screen, null while the pane is not.
let shown: { workspaceId: string; tab: Tab } | null = null;

export function openReview(tab: Tab): void {
  const w = page.selected;
  if (!w) return;
  const again = shown?.workspaceId === w.id;
  shown = { workspaceId: w.id, tab };
  $("review-ws").textContent = w.name;
  $("review").hidden = false;
  $("review").dataset.workspace = w.id;
  $("review").dataset.tab = tab;
  $("app").classList.add("in-review", "in-session");
  for (const t of ["changes", "files"] as const) {
    $(t).hidden = t !== tab;
    $("tab-" + t).classList.toggle("current", t === tab);
    $("tab-" + t).setAttribute("aria-selected", String(t === tab));
  }
  $("review").scrollIntoView({ block: "start" });
  if (tab === "changes") void guard("Git status", () => loadChanges(w.id));
  else void guard("Files", () => loadFiles(w.id, again));
}

// reviewEvent hands a workspace's events to the view that shows them.
export function reviewEvent(type: string, p: any): void {
  // A session opened since took the pane's place (session.ts drops
  // in-review): nothing to refresh.
  if (!shown || p?.workspace_id !== shown.workspaceId || !$("app").classList.contains("in-review")) return;
  if (shown.tab === "changes" && (type === "git_status_changed" || type === "git_operation_completed")) changesEvent(shown.workspaceId);
}

// followWorkspace shows the workspace picked in the list in the pane, if
// the pane is on screen: it listens after the list's own handler, which has
// set page.selected by then.
function followWorkspace(): void {
  const w = page.selected;
  const app = $("app").classList;
  // On a phone the list is on screen only after "‹ Back" (in-session
  // gone): picking a workspace there stays in the list.
  if (shown && w && w.id !== shown.workspaceId && app.contains("in-review") && app.contains("in-session")) openReview(shown.tab);
}

export function wireReview(): void {
  $("workspaces").addEventListener("click", followWorkspace);
  $("changes-open").onclick = () => openReview("changes");
  $("files-open").onclick = () => openReview("files");
  $("tab-changes").onclick = () => openReview("changes");
  $("tab-files").onclick = () => openReview("files");
  $("review-back").onclick = backToList;
  wireChanges();
  wireFiles();
}
