// What each turn of the open session changed in the workspace: a card per
// turn (event/turn_diff as it happens, session/turns for the stored ones)
// with its files and +/- counts, the diff on demand, and Revert
// (session/revert: a dry run first, listed for the reader to confirm;
// files changed since the turn are named and restored only if the reader
// insists, with force). Messages carry no turn number, so the cards sit in
// their own list under the transcript, by turn.
import type { TurnFile } from "../../clients/ts/src/index.js";
import { RpcError } from "../../clients/ts/src/index.js";

import { guard } from "./banners.js";
import { $, h } from "./dom.js";
import { patchView, plusMinus, splitPatches } from "./patches.js";
import { call } from "./rpc.js";

// cdevd's code for a revert over files changed since the turn.
const revertConflict = -32014;

interface Shown {
  turn: number;
  reverts?: number;
  files: TurnFile[];
  diff?: string;
  is_truncated?: boolean;
}

let sessionId = "";
const cards = new Map<number, HTMLElement>();
const diffs = new Map<number, Shown>();

export function resetTurns(id: string): void {
  sessionId = id;
  cards.clear();
  diffs.clear();
  $("turn-list").replaceChildren();
  $<HTMLDetailsElement>("turns").open = false;
  count();
}

// loadTurns draws the session's stored turns that changed something.
export async function loadTurns(id: string): Promise<void> {
  if (!id) return;
  const res = await call("session/turns", { session_id: id });
  if (id !== sessionId) return;
  for (const t of res.turns ?? []) add({ turn: t.turn, reverts: t.reverts, files: t.files ?? [] }, false);
}

// turnDiffEvent draws a turn that has just changed files.
export function turnDiffEvent(p: any): void {
  if (p?.session_id !== sessionId || typeof p.turn !== "number") return;
  add({ turn: p.turn, reverts: p.reverts, files: p.files ?? [], diff: p.diff, is_truncated: p.is_truncated }, true);
}

function count(): void {
  $("turns-count").textContent = cards.size ? `(${cards.size})` : "";
  $("turns").hidden = cards.size === 0;
}

function add(t: Shown, live: boolean): void {
  const had = diffs.get(t.turn);
  const old = cards.get(t.turn);
  // A replay after a reconnection sends a turn's event again: the card
  // (its diff open, a confirmation under way) stays as it is.
  if (old && (had?.diff !== undefined || t.diff === undefined)) return;
  diffs.set(t.turn, { ...had, ...t, diff: t.diff ?? had?.diff });
  const card = drawCard(t);
  if (old) old.replaceWith(card);
  else {
    // In turn order, whatever order they arrive in.
    const next = [...cards.keys()].filter((n) => n > t.turn).sort((a, b) => a - b)[0];
    const before = next !== undefined ? cards.get(next)! : null;
    $("turn-list").insertBefore(card, before);
  }
  cards.set(t.turn, card);
  count();
  if (live) {
    $<HTMLDetailsElement>("turns").open = true;
    card.scrollIntoView({ block: "nearest" });
  }
}

function drawCard(t: Shown): HTMLElement {
  let add = 0;
  let del = 0;
  for (const f of t.files) {
    add += f.additions;
    del += f.deletions;
  }
  const title = t.reverts ? `Turn ${t.turn}: revert of turn ${t.reverts}` : `Turn ${t.turn}`;
  const toggle = h("button", { type: "button", class: "turn-diff-toggle", "aria-expanded": "false" }, "Diff");
  const revert = h("button", { type: "button", class: "turn-revert danger" }, "Revert");
  const body = h("div", { class: "turn-diff" });
  body.hidden = true;
  const confirm = h("div", { class: "turn-confirm" });
  confirm.hidden = true;
  const card = h("div", { class: "turn", "data-turn": String(t.turn) },
    h("div", { class: "row turn-head" }, h("span", { class: "turn-title" }, title),
      h("span", { class: "turn-count" }, `${t.files.length} file${t.files.length === 1 ? "" : "s"}`), plusMinus(add, del), toggle, revert),
    h("ul", { class: "turn-files" }, ...t.files.map(fileRow)),
    confirm, body);
  toggle.onclick = () => {
    const open = body.hidden;
    toggle.setAttribute("aria-expanded", String(open));
    body.hidden = !open;
    if (open && !body.childElementCount) void guard("Turn diff", () => fillDiff(t.turn, body));
  };
  revert.onclick = () => void guard("Revert", () => dryRun(t.turn, confirm));
  return card;
}

function fileRow(f: TurnFile): HTMLElement {
  return h("li", { class: "turn-file", "data-path": f.path },
    h("span", { class: "git-status st-" + f.status }, f.status[0].toUpperCase()),
    h("span", { class: "turn-path" }, f.path), f.binary ? h("span", { class: "badge" }, "binary") : plusMinus(f.additions, f.deletions));
}

async function fillDiff(turn: number, body: HTMLElement): Promise<void> {
  let d = diffs.get(turn);
  if (d?.diff === undefined) {
    const id = sessionId;
    const res = await call("session/turn_diff", { session_id: id, turn });
    if (id !== sessionId) return;
    d = { ...res, files: res.files ?? [] };
    diffs.set(turn, d);
  }
  const parts: Node[] = [];
  for (const p of splitPatches(d.diff ?? "")) parts.push(h("div", { class: "patch-file" }, p.path), patchView(p));
  if (d.is_truncated) parts.push(h("p", { class: "truncated-note" }, "The diff is cut short: it is too long to keep whole."));
  if (!parts.length) parts.push(h("p", { class: "binary-note" }, "No line changes to show."));
  body.replaceChildren(...parts);
}

// dryRun asks what a revert would restore and lists it for the reader to
// confirm; files changed since the turn are named apart.
async function dryRun(turn: number, box: HTMLElement): Promise<void> {
  const id = sessionId;
  const res = await call("session/revert", { session_id: id, turn, dry_run: true });
  if (id !== sessionId) return;
  if (!res.files?.length) {
    showConfirm(box, turn, [], [], "Nothing to revert: the files are as they were before this turn.");
    return;
  }
  showConfirm(box, turn, res.files, res.conflicts ?? []);
}

function showConfirm(box: HTMLElement, turn: number, files: string[], conflicts: string[], said = ""): void {
  const cancel = h("button", { type: "button", class: "turn-cancel" }, said ? "Close" : "Cancel");
  cancel.onclick = () => {
    box.hidden = true;
    box.replaceChildren();
  };
  const kids: (Node | null)[] = [];
  if (said) kids.push(h("p", {}, said));
  else {
    kids.push(h("p", {}, `Revert turn ${turn}? These files go back to what they were before it:`),
      h("ul", { class: "revert-files" }, ...files.map((f) => h("li", {}, f))));
    if (conflicts.length)
      kids.push(h("p", { class: "revert-warning" }, "Changed since the turn (by you or a later turn); reverting overwrites those changes:"),
        h("ul", { class: "revert-conflicts" }, ...conflicts.map((f) => h("li", {}, f))));
    const force = conflicts.length > 0;
    const go = h("button", { type: "button", class: force ? "turn-force danger" : "turn-confirm-go danger" }, force ? "Revert anyway" : "Revert");
    go.onclick = () => void guard("Revert", () => revert(turn, force, box));
    kids.push(h("div", { class: "row" }, go, cancel));
  }
  if (said) kids.push(h("div", { class: "row" }, cancel));
  box.replaceChildren(...kids.filter((k): k is Node => k !== null));
  box.hidden = false;
}

async function revert(turn: number, force: boolean, box: HTMLElement): Promise<void> {
  const id = sessionId;
  try {
    const res = await call("session/revert", { session_id: id, turn, force });
    if (id !== sessionId) return;
    const n = res.files?.length ?? 0;
    const as = res.turn ? ` (recorded as turn ${res.turn}, which can be reverted in its turn)` : "";
    showConfirm(box, turn, [], [], `Reverted: ${n} file${n === 1 ? "" : "s"} restored${as}.`);
    box.classList.add("done");
  } catch (e) {
    // Changed since the dry run: say which files, and let the reader insist.
    if (e instanceof RpcError && e.code === revertConflict && id === sessionId) {
      const files = ((e.data as { files?: string[] } | undefined)?.files ?? []).map(String);
      showConfirm(box, turn, files, files);
      return;
    }
    throw e;
  }
}
