// The messages the view shows are always drawn. Window messages are
// `content-visibility: auto` (style.css): off screen they are neither laid
// out nor painted, which keeps drawing a chunk of them cheap. But Chromium
// finds which of them are near the view only after a frame is drawn: a
// message jumped into view (the scrollbar dragged, a fling, a picture of
// the full page, whose view is taller) was an empty box for a frame, and
// in a full-page screenshot for good. So here the messages in view, and a
// quarter of a view around it, are marked .shown (drawn whatever Chromium
// thinks) as the view moves, before the frame is drawn: scroll events and
// ResizeObserver callbacks both run before paint, and so do the places
// that add messages or change their size.
import { $ } from "./dom.js";

let shown = new Set<HTMLElement>();
let watched: HTMLElement | null = null;

// markShown marks the window's messages in and near the view, and unmarks
// those that left it (Chromium then skips them when they are far).
export function markShown(): void {
  const t = $("transcript");
  if (watched !== t) {
    watched = t;
    new ResizeObserver(markShown).observe(t);
  }
  const now = new Set<HTMLElement>();
  // A message drawn for the first time takes its real height, not the
  // placeholder's: those under it move, and may come into view. Rounds
  // find the messages in view once sizes settle (usually one or two; a
  // margin of a quarter of the view around it makes more rounds rare).
  // Each round reads every position first and marks after: a mark between
  // two reads would have the browser lay the transcript out again for each
  // message.
  for (let round = 0; round < 10; round++) {
    const v = t.getBoundingClientRect();
    const margin = v.height / 4;
    const toMark: HTMLElement[] = [];
    for (const m of t.querySelectorAll<HTMLElement>(":scope > .msg.w")) {
      const r = m.getBoundingClientRect();
      if (r.height === 0 || r.bottom < v.top - margin) continue;
      if (r.top > v.bottom + margin) break;
      now.add(m);
      if (!m.classList.contains("shown")) toMark.push(m);
    }
    if (!toMark.length) break;
    for (const m of toMark) m.classList.add("shown");
  }
  for (const m of shown) if (!now.has(m)) m.classList.remove("shown");
  shown = now;
}
