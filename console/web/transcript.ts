// The open session's transcript: stored pages (newest first, older ones
// prepended as the reader scrolls up), live messages and streamed drafts.
import { guard } from "./banners.js";
import { $, collapsible, h, when } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { call } from "./rpc.js";
import { messageKey, page, type Open } from "./state.js";
import { holdView, markShown } from "./shown.js";
import { attachResult, renderResult, renderToolUse, resultText } from "./tools.js";
import { plainMarkdown, release, releaseAll } from "./upgrade.js";

export const pageSize = 50;

export function newOpen(workspaceId: string, sessionId: string, agentType: string): Open {
  releaseAll();
  return {
    workspaceId, sessionId, agentType, offset: 0, hasMore: true, loading: false, seen: new Set(),
    tools: new Map(), orphans: new Map(), msgs: [], lo: 0, hi: 0,
  };
}

export async function reloadTranscript(): Promise<void> {
  const o = page.open;
  if (!o) return;
  o.offset = 0;
  o.hasMore = true;
  o.seen.clear();
  o.tools.clear();
  o.orphans.clear();
  o.msgs = [];
  o.lo = o.hi = 0;
  releaseAll();
  $("transcript").replaceChildren();
  await loadOlder();
}

// A window of at most maxDrawn messages is in the page: the browser lays
// out and paints what is drawn, and 5,000 rich messages make every frame
// slow. Scrolling near either end draws the next chunk there and drops
// one at the other end; messages already loaded are drawn from memory.
// Chunks are small so that drawing one fits in a frame; answers in them
// are drawn plain and rendered as they near the view (upgrade.ts).
const maxDrawn = 120;
const chunk = 20;
// A transcript opens on its newest messages, the few a view shows, drawn
// rendered at once (plain, they would wait a frame or more for
// upgrade.ts, and jump as they render): the first paint waits for nothing
// else. Older ones are drawn when the reader scrolls up, or at once (a
// chunk, plain) when these do not fill the view.
const openRendered = 6;

const drawn = (t: HTMLElement) => t.querySelectorAll<HTMLElement>(":scope > .msg.w");

// draw renders msgs[from:to] as window messages, their answers plain
// before msgs[rendered].
function draw(o: Open, from: number, to: number, rendered = to): DocumentFragment {
  const frag = document.createDocumentFragment();
  for (let i = from; i < to; i++) {
    const el = renderMessage(o.msgs[i], o, i < rendered);
    el.classList.add("w");
    frag.append(el);
  }
  return frag;
}

// forget drops a message element and what points into it.
function forget(o: Open, el: HTMLElement): void {
  for (const c of el.querySelectorAll<HTMLElement>(".tool[data-tool-id]")) o.tools.delete(c.dataset.toolId ?? "");
  for (const r of el.querySelectorAll<HTMLElement>(".tool-result[data-block]")) o.orphans.delete(JSON.parse(r.dataset.block ?? "{}").tool_use_id);
  release(el);
  el.remove();
}

// drawOlder draws the chunk above the window, keeping what the reader
// sees in place, and drops the bottom of the window past maxDrawn.
function drawOlder(o: Open): void {
  const t = $("transcript");
  // The message the reader sees stays where it is: the view moves down by
  // what is drawn above it. Kept as the distance from the bottom, it
  // moved by what the window dropped below as well; with a full window the
  // reader jumped, and when the dropped part was the taller they stayed at
  // the very top with nothing left to scroll.
  const opening = drawn(t).length === 0;
  const putBack = holdView();
  const fromBottom = t.scrollHeight - t.scrollTop;
  const n = Math.min(opening ? openRendered : chunk, o.lo);
  t.querySelector(".older")?.remove();
  t.prepend(draw(o, o.lo - n, o.lo, opening ? o.lo - n : o.lo));
  o.lo -= n;
  const els = drawn(t);
  for (let i = els.length - 1; o.hi - o.lo > maxDrawn; i--, o.hi--) forget(o, els[i]);
  if (o.lo > 0 || o.hasMore) t.prepend(h("div", { class: "older" }, "scroll up for older messages"));
  if (opening) {
    t.scrollTop = t.scrollHeight - fromBottom;
    markShown();
  } else putBack();
  // A view not yet filled cannot be scrolled up: draw on by itself.
  if ((o.lo > 0 || o.hasMore) && t.scrollHeight - 200 < t.clientHeight)
    requestAnimationFrame(() => page.open === o && guard("Load older messages", loadOlder));
}

// drawNewer draws the chunk below the window and drops its top.
function drawNewer(o: Open): void {
  const t = $("transcript");
  const n = Math.min(chunk, o.msgs.length - o.hi);
  if (n <= 0) return;
  const putBack = holdView();
  const after = drawn(t)[o.hi - o.lo - 1]?.nextSibling ?? null;
  t.insertBefore(draw(o, o.hi, o.hi + n), after);
  o.hi += n;
  const els = drawn(t);
  for (let i = 0; o.hi - o.lo > maxDrawn; i++, o.lo++) forget(o, els[i]);
  if (o.lo > 0 && !t.querySelector(".older")) t.prepend(h("div", { class: "older" }, "scroll up for older messages"));
  putBack();
}

// onTranscriptScroll draws more at the end the reader nears.
export function onTranscriptScroll(): Promise<void> {
  const t = $("transcript");
  const o = page.open;
  if (o && t.scrollHeight - t.scrollTop - t.clientHeight < 200 && o.hi < o.msgs.length) drawNewer(o);
  else markShown();
  if (t.scrollTop < 200) return loadOlder();
  return Promise.resolve();
}

// loadOlder draws the messages above the window: from memory, or the
// next page read backwards from the newest message.
export async function loadOlder(): Promise<void> {
  const o = page.open;
  if (!o || o.loading) return;
  if (o.lo > 0) return drawOlder(o);
  if (!o.hasMore) return;
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
    if (page.open !== o) return;
    const msgs: any[] = res.messages ?? [];
    o.offset += msgs.length;
    o.hasMore = !!res.has_more && msgs.length > 0;
    const older: any[] = [];
    for (const m of msgs.reverse()) {
      const key = messageKey(m);
      if (key && o.seen.has(key)) continue;
      if (key) o.seen.add(key);
      older.push(m);
    }
    o.msgs.unshift(...older);
    o.lo += older.length;
    o.hi += older.length;
    // Only a chunk now (the newest): the rest of the page is drawn from
    // memory as the reader scrolls up.
    if (o.lo > 0) drawOlder(o);
    else if (!o.hasMore) $("transcript").querySelector(".older")?.remove();
  } finally {
    o.loading = false;
  }
}

// answer is an assistant's markdown: rendered, or plain until it nears
// the view (stored messages drawn in bulk).
const answer = (text: string, plain: boolean) => (plain ? plainMarkdown(text) : renderMarkdown(text));

function renderBlock(b: any, o: Open, plain: boolean): Node | null {
  switch (b?.type) {
    case "text":
      return answer(b.text ?? "", plain);
    case "thinking":
      // Collapsed: the answer matters more than the reasoning.
      return h("details", { class: "thinking" }, h("summary", {}, "thinking"), h("div", { class: "text" }, b.thinking ?? b.text ?? ""));
    case "tool_use": {
      const card = renderToolUse(b);
      const id = typeof b.id === "string" ? b.id : "";
      if (id) {
        o.tools.set(id, card);
        // Its result was drawn first (it came on a newer page): take it in.
        const orphan = o.orphans.get(id);
        if (orphan) {
          o.orphans.delete(id);
          orphan.remove();
          // Its card may be drawn anew (a result's diffs): that one is kept.
          const done = attachResult(card, JSON.parse(orphan.dataset.block ?? "{}"));
          o.tools.set(id, done);
          return done;
        }
      }
      return card;
    }
    case "tool_result": {
      const card = o.tools.get(b.tool_use_id ?? "");
      if (card) {
        o.tools.set(b.tool_use_id, attachResult(card, b));
        return null;
      }
      const el = renderResult(resultText(b.content), !!b.is_error);
      if (b.tool_use_id) {
        el.dataset.block = JSON.stringify(b);
        o.orphans.set(b.tool_use_id, el);
      }
      return el;
    }
    case "image":
      return h("div", { class: "text" }, "[image]");
    default:
      return h("details", { class: "unknown-block" }, h("summary", {}, String(b?.type ?? "block")), h("pre", {}, JSON.stringify(b, null, 2)));
  }
}

// noteModel fills the session header's model from the first message
// that names it (stored or live).
function noteModel(m: any): void {
  const model = m?.message?.model;
  const el = $("session-model");
  if (typeof model === "string" && model && el.hidden) {
    el.textContent = model;
    el.hidden = false;
  }
}

// userText is what a person typed, as typed (no markdown), long ones folded.
function userText(text: string): HTMLElement {
  return collapsible(h("div", { class: "text" }, text), text, 12, 1200);
}

// cliNote is the text of a "user" message the CLI wrote itself to report
// what a local command did (Claude Code's "<local-command-stdout>Set model
// to haiku…</local-command-stdout>" after a model switch), or null for
// anything a person typed: those are not the user's words.
function cliNote(content: any): string | null {
  const text = typeof content === "string" ? content
    : Array.isArray(content) && content.length === 1 && content[0]?.type === "text" ? String(content[0].text ?? "") : null;
  const m = text?.match(/^\s*<local-command-(stdout|stderr)>([\s\S]*)<\/local-command-\1>\s*$/);
  return m ? m[2].trim() : null;
}

// renderMessage draws a message; plain: its answers drawn plain first.
export function renderMessage(m: any, o: Open, plain = false): HTMLElement {
  let role = m.type ?? m.message?.role ?? "";
  let content = m.message?.content;
  const note = role === "user" ? cliNote(content) : null;
  if (note !== null) {
    role = "cli-note";
    content = [{ type: "text", text: note }];
  }
  const el = h("div", { class: "msg " + role, "data-id": messageKey(m) });
  if (typeof content === "string") el.append(role === "user" ? userText(content) : answer(content, plain));
  else
    for (const b of content ?? []) {
      const part = b?.type === "text" && (role === "user" || role === "cli-note") ? userText(b.text ?? "") : renderBlock(b, o, plain);
      if (part) el.append(part);
    }
  noteModel(m);
  // A message that only carried results now shown in their calls' cards.
  if (!el.childElementCount) el.classList.add("absorbed");
  const time = when(m.timestamp);
  if (time) el.prepend(h("time", { class: "msg-time", datetime: String(m.timestamp) }, time));
  return el;
}

function stuckToBottom(): boolean {
  const t = $("transcript");
  return t.scrollHeight - t.scrollTop - t.clientHeight < 60;
}

export function append(el: HTMLElement): void {
  const t = $("transcript");
  const stick = stuckToBottom();
  t.append(el);
  if (stick) t.scrollTop = t.scrollHeight;
}

export function delta(p: any): void {
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
  // Drafts stay plain text: markdown half-written renders wrongly, and the
  // complete message replaces the draft rendered.
  const target = cls === "thinking" ? (part.lastElementChild as HTMLElement) : part;
  target.textContent += p.text ?? "";
  if (stuckToBottom()) t.scrollTop = t.scrollHeight;
}

// A complete message replaces its streamed draft: the one with its id, or
// (for runtimes whose deltas carry ids of cdevd's making) the oldest draft.
export function message(p: any): void {
  const o = page.open!;
  const t = $("transcript");
  const key = messageKey(p);
  if (p.type === "assistant") {
    const draft =
      t.querySelector(`.msg.streaming[data-id="${CSS.escape(key)}"]`) ??
      t.querySelector(`.msg.streaming[data-id="${CSS.escape(String(p.id ?? ""))}"]`) ??
      t.querySelector(".msg.streaming");
    draft?.remove();
  }
  if (key && o.seen.has(key)) return;
  if (key) o.seen.add(key);
  o.offset++;
  o.msgs.push(p);
  // Drawn when the window reaches the end; else the reader scrolling
  // down draws it.
  if (o.hi !== o.msgs.length - 1) return;
  const el = renderMessage(p, o);
  el.classList.add("w");
  append(el);
  o.hi++;
  if (o.hi - o.lo > maxDrawn && stuckToBottom()) {
    forget(o, drawn(t)[0]);
    o.lo++;
  }
  markShown();
}

// cutDrafts marks drafts that will never be completed, the process that
// was writing them being gone, so they no longer look in progress.
export function cutDrafts(): void {
  for (const d of $("transcript").querySelectorAll(".msg.streaming")) {
    d.classList.remove("streaming");
    d.classList.add("interrupted");
  }
}

export function endDrafts(): void {
  for (const d of $("transcript").querySelectorAll(".msg.streaming")) d.classList.remove("streaming");
}
