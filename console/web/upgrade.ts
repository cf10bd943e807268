// Stored answers drawn plain first and rendered as they come near the
// view. Rendering an answer (marked, DOMPurify, highlight.js, and laying
// out what they make) costs many times what its plain text does: drawn
// rich, a chunk of stored messages held whole frames, and opening a long
// session waited on answers nobody was looking at. So a stored answer is
// drawn as its text (the same characters, wrapped), an
// IntersectionObserver on the transcript queues those within a screen of
// the view, and each frame renders those in view and a few more, the
// nearest first, within a time budget. BenchmarkConsoleLargeSession and
// BenchmarkConsoleOpenLargeSession measure it beside the consoles before
// (figures in docs/console.md).
import { $, collapsible, h } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { holdView } from "./shown.js";

// Work per frame: past it the rest waits for the next frame, so a fling
// through a long transcript stays smooth and catches up when it stops.
const budgetMs = 8;
const inViewBudgetMs = 16;

const sources = new WeakMap<Element, string>();
const queue = new Set<HTMLElement>();
let observer: IntersectionObserver | null = null;
let scheduled = false;

function watcher(): IntersectionObserver {
  // A screen above and below the view: rendered before it is seen.
  observer ??= new IntersectionObserver(seen, { root: $("transcript"), rootMargin: "100% 0px" });
  return observer;
}

function seen(entries: IntersectionObserverEntry[]): void {
  for (const e of entries) {
    const el = e.target as HTMLElement;
    if (e.isIntersecting) queue.add(el);
    else queue.delete(el);
  }
  if (queue.size && !scheduled) {
    scheduled = true;
    requestAnimationFrame(work);
  }
}

// plainMarkdown is markdown drawn as its text, to be rendered (upgrade)
// when it nears the view. Long ones fold as the rendered ones do.
export function plainMarkdown(text: string): HTMLElement {
  const el = collapsible(h("div", { class: "text md-plain" }, text), text, 80, 8000);
  el.classList.add("md-pending");
  sources.set(el, text);
  watcher().observe(el);
  return el;
}

// work renders the queued answers in view, the nearest the view's middle
// first, then those nearest it until the frame's budget is spent. Those in
// view have a budget of their own, larger, and at least one is rendered
// each frame: a view's answers all rendered in one frame held it for
// hundreds of ms on a busy machine (a fling through a long transcript
// stuttered), and without a budget of their own they waited behind the
// rest for a second.
function work(): void {
  scheduled = false;
  const t = $("transcript");
  const view = t.getBoundingClientRect();
  const middle = (view.top + view.bottom) / 2;
  const distance = new Map<HTMLElement, number>();
  const inView: HTMLElement[] = [];
  for (const el of queue) {
    if (!el.isConnected) {
      queue.delete(el);
      continue;
    }
    const r = el.getBoundingClientRect();
    distance.set(el, Math.abs((r.top + r.bottom) / 2 - middle));
    if (r.bottom > view.top && r.top < view.bottom) inView.push(el);
  }
  const nearest = (a: HTMLElement, b: HTMLElement) => distance.get(a)! - distance.get(b)!;
  const putBack = holdView();
  const start = performance.now();
  let done = 0;
  for (const el of inView.sort(nearest)) {
    if (done && performance.now() - start > inViewBudgetMs) break;
    upgrade(el);
    done++;
  }
  for (const el of [...distance.keys()].sort(nearest)) {
    if (performance.now() - start > budgetMs) break;
    if (!queue.has(el)) continue;
    upgrade(el);
    done++;
  }
  // Rendered answers are taller or shorter than their text: what the
  // reader sees is put back in place, and what the view shows now drawn.
  if (done) putBack();
  if (queue.size) {
    scheduled = true;
    requestAnimationFrame(work);
  }
}

function upgrade(el: HTMLElement): void {
  queue.delete(el);
  observer?.unobserve(el);
  const text = sources.get(el);
  if (text === undefined) return;
  sources.delete(el);
  el.replaceWith(renderMarkdown(text));
}

// release stops watching the answers under el, which leaves the page.
export function release(el: Element): void {
  const pending = el.classList.contains("md-pending") ? [el] : el.querySelectorAll(".md-pending");
  for (const p of pending) {
    observer?.unobserve(p);
    queue.delete(p as HTMLElement);
  }
}

// releaseAll forgets every pending answer (another transcript opens).
export function releaseAll(): void {
  observer?.disconnect();
  queue.clear();
}
