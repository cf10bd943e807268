// Banners belong to the action that failed: each action has at most one
// (a second failure replaces it, so a reason is said once), and it goes
// when that action next succeeds or the reader dismisses it. Other
// actions succeeding leave it alone.
import { $, h } from "./dom.js";
import { describe } from "./rpc.js";

export function showBanner(action: string, msg: string): void {
  const box = $("banner");
  let b = box.querySelector<HTMLElement>(`.banner-item[data-action="${CSS.escape(action)}"]`);
  if (!b) {
    const close = h("button", { type: "button", class: "dismiss", "aria-label": "dismiss" }, "×");
    b = h("div", { class: "banner-item", "data-action": action }, h("span", { class: "banner-text" }), close);
    close.onclick = () => clearBanner(action);
    box.append(b);
  }
  b.querySelector(".banner-text")!.textContent = msg;
  box.hidden = false;
}

export function clearBanner(action: string): void {
  const box = $("banner");
  box.querySelector(`.banner-item[data-action="${CSS.escape(action)}"]`)?.remove();
  box.hidden = box.children.length === 0;
}

// guard runs an action, clears its banner when it succeeds and shows its
// failure instead of swallowing it.
export async function guard(action: string, f: () => Promise<void>): Promise<boolean> {
  try {
    await f();
    clearBanner(action);
    return true;
  } catch (e) {
    showBanner(action, `${action}: ${describe(e)}`);
    return false;
  }
}
