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

// holdView notes where the first message starting in the view is, and
// returns what puts it back there once messages above it have changed
// (drawn above the window, rendered, or taking their real height): the
// reader keeps reading what they read. Chromium's own scroll anchoring
// does not: it holds the partly shown message at the top of the view, so
// the one under it jumped when that one was rendered, and not at all when
// the message it held was replaced.
export function holdView(): () => void {
  const t = $("transcript");
  const top = t.getBoundingClientRect().top;
  let anchor: HTMLElement | undefined;
  for (const m of t.querySelectorAll<HTMLElement>(":scope > .msg")) {
    const r = m.getBoundingClientRect();
    if (r.height > 0 && r.top >= top) {
      anchor = m;
      break;
    }
  }
  const at = anchor?.getBoundingClientRect().top ?? 0;
  return () => {
    // Messages marked shown take their real height: those above the
    // anchor move it again. Two rounds settle it in practice.
    for (let round = 0; anchor?.isConnected && round < 4; round++) {
      const moved = anchor.getBoundingClientRect().top - at;
      if (Math.abs(moved) < 1) break;
      t.scrollTop += moved;
      markShown();
    }
    markShown();
  };
}
