// The Changes view: a workspace's git status (staged, unstaged, untracked
// and conflicted files as git/status gives them), one file's diff, stage
// and unstage, commit and push. It reloads when cdevd says the status
// moved (git_status_changed, git_operation_completed), whoever moved it.
import type { GitFile, GitStatusResult } from "../../clients/ts/src/index.js";

import { guard } from "./banners.js";
import { $, h } from "./dom.js";
import { patchView, plusMinus, splitPatches } from "./patches.js";
import { call } from "./rpc.js";
import { RpcError } from "../../clients/ts/src/index.js";

type Group = "staged" | "unstaged" | "untracked" | "conflicted";

const groups: { key: Group; title: string }[] = [
  { key: "conflicted", title: "Conflicted" },
  { key: "staged", title: "Staged" },
  { key: "unstaged", title: "Changed" },
  { key: "untracked", title: "Untracked" },
];

// cdevd's code for git/* in a folder outside any repository.
const notGitRepo = -32023;

let workspaceId = "";
// The file whose diff is shown, kept across reloads while it is changed.
let chosen: { path: string; group: Group } | null = null;
// Answers can cross (an event's reload and an action's): only the
// newest draws.
let generation = 0;
let reloadTimer: ReturnType<typeof setTimeout> | null = null;

// outcome is what a write method answered: cdevd answers a git failure as
// success:false with the reason, which the action's banner shows.
function outcome<T extends { success: boolean; error?: string; message?: string }>(r: T): T {
  if (!r.success) throw new Error(r.error || r.message || "git failed");
  return r;
}

function say(msg: string): void {
  $("git-note").textContent = msg;
  $("git-note").hidden = msg === "";
}

// loadChanges shows workspace wid's changes (review.ts, on opening).
export async function loadChanges(wid: string): Promise<void> {
  if (wid !== workspaceId) {
    workspaceId = wid;
    chosen = null;
    say("");
    $("git-diff").replaceChildren();
  }
  await refresh(wid);
}

// refresh redraws the status if wid is still the workspace shown: an
// action's or an event's reload that lands after the reader moved on to
// another workspace draws nothing.
async function refresh(wid: string): Promise<void> {
  if (wid !== workspaceId) return;
  const mine = ++generation;
  let st: GitStatusResult;
  try {
    st = await call("git/status", { workspace_id: wid });
  } catch (e) {
    if (mine !== generation) return;
    if (e instanceof RpcError && e.code === notGitRepo) {
      // Not a failure of the reader's: the folder is not a repository.
      $("changes").classList.add("no-git");
      drawn = "";
      $("git-groups").replaceChildren(h("p", { class: "git-none" }, "This workspace is not a git repository."));
      $("git-branch").textContent = "";
      $("git-sync").textContent = "";
      return;
    }
    throw e;
  }
  if (mine !== generation) return;
  $("changes").classList.remove("no-git");
  drawStatus(st);
  if (chosen && !groups.some((g) => (st[g.key] ?? []).some((f) => f.path === chosen!.path && g.key === chosen!.group))) {
    // Committed, unstaged, or moved to another group: find it there.
    const moved = groups.find((g) => (st[g.key] ?? []).some((f) => f.path === chosen!.path));
    chosen = moved ? { path: chosen.path, group: moved.key } : null;
  }
  if (chosen) await showDiff(chosen.path, chosen.group);
  else $("git-diff").replaceChildren(h("p", { class: "git-hint" }, "Choose a file to see its diff."));
}

// drawn is the status last drawn: an event that finds it unchanged
// leaves the rows (and the button under the pointer) alone.
let drawn = "";

function drawStatus(st: GitStatusResult): void {
  const now = JSON.stringify([workspaceId, st, chosen]);
  if (now === drawn) return;
  drawn = now;
  $("git-branch").textContent = st.branch ? `⎇ ${st.branch}` : "detached HEAD";
  $("git-sync").textContent = st.upstream ? `${st.upstream} · ↑${st.ahead} ↓${st.behind}` : "no upstream";
  const box = $("git-groups");
  box.replaceChildren();
  let any = false;
  for (const g of groups) {
    const files = st[g.key] ?? [];
    if (files.length === 0) continue;
    any = true;
    const all =
      g.key === "staged"
        ? button("Unstage all", "git-unstage-all", () => act("Unstage", "git/unstage", ["."]))
        : g.key === "conflicted"
          ? null
          : button("Stage all", "git-stage-all", () => act("Stage", "git/stage", files.map((f) => f.path)));
    box.append(
      h("section", { class: "git-group", "data-group": g.key },
        h("div", { class: "row git-group-head" }, h("h3", {}, `${g.title} (${files.length})`), all),
        h("ul", {}, ...files.map((f) => fileRow(f, g.key)))),
    );
  }
  if (!any) box.append(h("p", { class: "git-clean" }, "Nothing to commit: the working tree is clean."));
}

function fileRow(f: GitFile, group: Group): HTMLElement {
  const open = h("button", { type: "button", class: "git-path", title: f.old_path ? `${f.old_path} → ${f.path}` : f.path }, f.path);
  open.onclick = () => {
    chosen = { path: f.path, group };
    for (const r of $("git-groups").querySelectorAll(".git-file")) r.classList.remove("chosen");
    li.classList.add("chosen");
    void guard("Diff", () => showDiff(f.path, group));
  };
  const action =
    group === "staged"
      ? button("Unstage", "git-unstage", () => act("Unstage", "git/unstage", [f.path]))
      : button("Stage", "git-stage", () => act("Stage", "git/stage", [f.path]));
  const counts = f.additions !== undefined || f.deletions !== undefined ? plusMinus(f.additions, f.deletions) : null;
  const chosenNow = chosen?.path === f.path && chosen.group === group;
  const li = h("li", { class: "git-file" + (chosenNow ? " chosen" : ""), "data-path": f.path, "data-group": group },
    h("span", { class: "git-status st-" + statusClass(f.status), title: statusName(f.status) }, f.status), open, counts, action);
  return li;
}

function statusClass(s: string): string {
  return s === "?" ? "new" : s.toLowerCase();
}

function statusName(s: string): string {
  const names: Record<string, string> = { M: "modified", A: "added", D: "deleted", R: "renamed", C: "copied", T: "type changed", "?": "untracked", U: "unmerged" };
  return names[s] ?? s;
}

function button(label: string, cls: string, f: () => void): HTMLElement {
  const b = h("button", { type: "button", class: cls }, label);
  b.onclick = (e) => {
    e.stopPropagation();
    f();
  };
  return b;
}

function act(action: "Stage" | "Unstage", method: "git/stage" | "git/unstage", paths: string[]): void {
  const wid = workspaceId;
  void guard(action, async () => {
    outcome(await call(method, { workspace_id: wid, paths }));
    await refresh(wid);
  });
}

async function showDiff(path: string, group: Group): Promise<void> {
  const wid = workspaceId;
  const res = await call("git/diff", { workspace_id: wid, path, staged: group === "staged" });
  if (wid !== workspaceId || chosen?.path !== path) return;
  const box = $("git-diff");
  const d = res.diffs?.[0];
  const head = h("div", { class: "git-diff-head" }, h("span", { class: "git-diff-path" }, path),
    d?.is_new ? h("span", { class: "badge" }, "new") : null,
    h("span", { class: "badge" }, group === "staged" ? "staged" : "working tree"));
  if (!d || !d.diff) {
    box.replaceChildren(head, h("p", { class: "git-hint" }, "No changes in this file."));
    return;
  }
  const patches = splitPatches(d.diff);
  box.replaceChildren(head, ...patches.map(patchView),
    d.is_truncated ? h("p", { class: "truncated-note" }, "The diff is cut short: it is too long to send whole.") : "");
  box.dataset.path = path;
  // On a phone the diff is below the list: bring it into view.
  if (window.matchMedia("(max-width: 700px)").matches) box.scrollIntoView({ block: "start" });
}

// changesEvent reloads the status once for a burst of events.
export function changesEvent(wid: string): void {
  if (wid !== workspaceId || reloadTimer) return;
  reloadTimer = setTimeout(() => {
    reloadTimer = null;
    void guard("Git status", () => refresh(wid));
  }, 150);
}

export function wireChanges(): void {
  $("git-refresh").onclick = () => void guard("Git status", () => refresh(workspaceId));
  $("commit-form").onsubmit = (e) => {
    e.preventDefault();
    const wid = workspaceId;
    say("");
    void guard("Commit", async () => {
      const ta = $<HTMLTextAreaElement>("commit-message");
      const message = ta.value.trim();
      if (!message) throw new Error("write a commit message first");
      const r = outcome(await call("git/commit", { workspace_id: wid, message }));
      ta.value = "";
      say(`Committed ${r.sha?.slice(0, 7) ?? ""}: ${r.files_committed} file${r.files_committed === 1 ? "" : "s"}.`);
      await refresh(wid);
    });
  };
  $("git-push").onclick = () => {
    const wid = workspaceId;
    say("");
    void guard("Push", async () => {
      $("git-push").setAttribute("disabled", "");
      try {
        const r = outcome(await call("git/push", { workspace_id: wid }));
        say(r.commits_pushed ? `Pushed ${r.commits_pushed} commit${r.commits_pushed === 1 ? "" : "s"}.` : (r.message ?? "Pushed."));
      } finally {
        $("git-push").removeAttribute("disabled");
      }
      await refresh(wid);
    });
  };
}
