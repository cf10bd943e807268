// Small DOM helpers shared by every part of the page.

export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

// h builds an element; text goes in as text nodes, never as HTML (the one
// way HTML enters the page is markdown.ts, through the sanitiser).
export function h(tag: string, attrs: Record<string, string> = {}, ...kids: (Node | string | null | undefined)[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const k of kids) if (k !== null && k !== undefined) el.append(k);
  return el;
}

// when is a timestamp as a person reads it: the time alone for today,
// the date too otherwise; "" for none or an unreadable one.
// The formatters are made once: toLocaleTimeString makes one per call,
// which costs more than the rest of drawing a message.
const timeFormat = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit" });
const dateFormat = new Intl.DateTimeFormat([]);

export function when(ts: unknown, now = new Date()): string {
  if (typeof ts !== "string" && typeof ts !== "number") return "";
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return "";
  const time = timeFormat.format(d);
  return d.toDateString() === now.toDateString() ? time : `${dateFormat.format(d)} ${time}`;
}

// copyButton copies what text() returns when clicked, and says so.
export function copyButton(text: () => string, label = "Copy"): HTMLElement {
  const b = h("button", { type: "button", class: "copy", "aria-label": label }, label);
  b.onclick = (e) => {
    e.stopPropagation();
    navigator.clipboard?.writeText(text()).then(
      () => flash(b, "Copied"),
      () => flash(b, "Copy failed"),
    );
  };
  return b;
}

function flash(b: HTMLElement, msg: string): void {
  const was = b.textContent;
  b.textContent = msg;
  setTimeout(() => (b.textContent = was), 1200);
}

// collapsible wraps content that is long (more than maxLines lines or
// maxChars characters) so it shows its head and expands on demand.
export function collapsible(el: HTMLElement, text: string, maxLines = 24, maxChars = 2400): HTMLElement {
  const lines = text.split("\n").length;
  if (lines <= maxLines && text.length <= maxChars) return el;
  const box = h("div", { class: "collapsible collapsed" }, el);
  const more = h("button", { type: "button", class: "expand" }, `Show all (${lines} lines)`);
  more.onclick = () => {
    const collapsed = box.classList.toggle("collapsed");
    more.textContent = collapsed ? `Show all (${lines} lines)` : "Show less";
  };
  box.append(more);
  return box;
}
