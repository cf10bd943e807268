// The follow-up queue under the composer: the prompts sent while the agent
// works, which cdevd runs one per turn. Each can be edited, moved up or
// removed; a paused queue says why and offers to resume. What is drawn is
// always the server's queue (from session/queue/list or the last
// queue_changed), never a guess.
import { guard } from "./banners.js";
import { $, h } from "./dom.js";
import { call } from "./rpc.js";
import { page } from "./state.js";

interface Item {
  queue_id: string;
  prompt: string;
}

interface Queue {
  items?: Item[];
  paused?: boolean;
  pause_reason?: string;
  pause_message?: string;
}

const reasons: Record<string, string> = {
  interrupted: "the turn before was interrupted",
  stopped: "the session was stopped",
  failed: "a turn failed",
  restarted: "cdevd restarted",
};

// renderQueue draws q for the open session.
export function renderQueue(q: Queue): void {
  const box = $("queue");
  const items = q.items ?? [];
  box.hidden = items.length === 0;
  const list = h("ol", { class: "queue-items" });
  items.forEach((it, i) => list.append(item(it, i)));
  const head = h("div", { class: "queue-head" }, h("span", {}, `Queued (${items.length})`));
  if (q.paused) {
    const why = reasons[q.pause_reason ?? ""] ?? "paused";
    head.append(h("span", { class: "queue-paused" }, `Paused: ${why}${q.pause_message ? ` (${q.pause_message})` : ""}`));
    head.append(action("Resume", "queue-resume", () => act("session/queue/resume", {})));
  }
  head.append(action("Clear", "queue-clear", () => act("session/queue/clear", {})));
  box.replaceChildren(head, list);
  box.classList.toggle("paused", !!q.paused);
}

function item(it: Item, i: number): HTMLElement {
  const text = h("span", { class: "queue-text" }, it.prompt);
  const li = h("li", { class: "queued", "data-queue-id": it.queue_id }, text);
  const edit = action("Edit", "queue-edit", () => {
    const input = h("input", { class: "queue-input", value: it.prompt }) as HTMLInputElement;
    input.onkeydown = (e) => {
      if (e.key === "Enter" && input.value.trim()) {
        void act("session/queue/update", { queue_id: it.queue_id, prompt: input.value });
      } else if (e.key === "Escape") {
        input.replaceWith(text);
      }
    };
    text.replaceWith(input);
    input.focus();
  });
  const up = action("↑", "queue-up", () => act("session/queue/move", { queue_id: it.queue_id, position: i }));
  up.setAttribute("aria-label", "Move up");
  (up as HTMLButtonElement).disabled = i === 0;
  const remove = action("Remove", "queue-remove", () => act("session/queue/remove", { queue_id: it.queue_id }));
  li.append(h("span", { class: "queue-actions" }, edit, up, remove));
  return li;
}

function action(label: string, cls: string, run: () => void): HTMLElement {
  const b = h("button", { type: "button", class: cls }, label);
  b.onclick = run;
  return b;
}

// act calls a queue method for the open session and draws its answer (the
// event that follows draws the same queue again).
type QueueMethod = "session/queue/update" | "session/queue/move" | "session/queue/remove" | "session/queue/clear" | "session/queue/resume";

function act(method: QueueMethod, extra: Record<string, unknown>): Promise<boolean> {
  return guard("Queue", async () => {
    const o = page.open;
    if (!o) return;
    const q = await (call as any)(method, { session_id: o.sessionId, ...extra });
    if (page.open === o) renderQueue(q);
  });
}

// loadQueue draws the open session's queue as the server has it.
export async function loadQueue(): Promise<void> {
  const o = page.open;
  if (!o) return;
  const q = await call("session/queue/list", { session_id: o.sessionId });
  if (page.open === o) renderQueue(q);
}
