package console_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
)

// jumpAndLook is a JavaScript expression: it scrolls the transcript at
// once to the fraction %[1]f of its height (a scrollbar dragged, a fling,
// a search hit) and, before the browser draws a frame, returns the
// messages in view whose content the browser would skip drawing
// (checkVisibility says so of what content-visibility hides).
const jumpAndLook = `(() => {
  const t = document.querySelector('#transcript');
  t.scrollTop = Math.round((t.scrollHeight - t.clientHeight) * %[1]f);
  t.dispatchEvent(new Event('scroll'));
  const v = t.getBoundingClientRect();
  return [...t.querySelectorAll(':scope > .msg')].filter((m) => {
    const r = m.getBoundingClientRect();
    return r.bottom > v.top && r.top < v.bottom && r.height > 0;
  }).filter((m) => [...m.children].some((c) => !c.checkVisibility({ contentVisibilityAuto: true }))).map((m) => m.dataset.id);
})()`

// inView is a JavaScript expression: the transcript's rectangle and the
// messages in it, with their rectangles and how much text they hold.
const inView = `(() => {
  const t = document.querySelector('#transcript');
  const r = (e) => { const b = e.getBoundingClientRect(); return { top: b.top, bottom: b.bottom, left: b.left, right: b.right }; };
  const v = r(t);
  const msgs = [...t.querySelectorAll(':scope > .msg')].map((m) => ({ id: m.dataset.id ?? '', ...r(m), text: (m.textContent ?? '').trim().length }))
    .filter((m) => m.bottom > v.top && m.top < v.bottom && m.bottom > m.top);
  return { view: v, msgs, dpr: devicePixelRatio };
})()`

// scrollToTop is a JavaScript expression: it scrolls the transcript to
// its top, as a reader flinging up, and returns the message at the top of
// the window, where it is, and how many messages the window holds.
const scrollToTop = `(() => {
  const t = document.querySelector('#transcript');
  t.scrollTop = 0;
  const m = t.querySelector(':scope > .msg.w');
  const seen = { id: m.dataset.id, top: m.getBoundingClientRect().top, drawn: t.querySelectorAll(':scope > .msg.w').length };
  t.dispatchEvent(new Event('scroll'));
  return seen;
})()`

type anchored struct {
	ID    string
	Top   float64
	Drawn int
}

type box struct {
	Top, Bottom, Left, Right float64
}

type msgInView struct {
	box
	ID   string
	Text int
}

type transcriptView struct {
	View box
	Msgs []msgInView
	DPR  float64
}

// ink counts the pixels in r (CSS pixels, scaled by dpr) dark enough to
// be text, a code block or a badge: a message's background has none, so
// an empty box has none.
func ink(img image.Image, r box, dpr float64) int {
	n := 0
	for y := int(r.Top * dpr); y < int(r.Bottom*dpr); y++ {
		for x := int(r.Left * dpr); x < int(r.Right*dpr); x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if (cr+cg+cb)/3>>8 < 170 {
				n++
			}
		}
	}
	return n
}

// A long transcript jumped through shows every message in view, whole or
// in part, with its content: never an empty box. Messages had
// content-visibility: auto, which left a message scrolled into view
// undrawn until the browser had found it near the view, a frame later
// or, in a full-page screenshot, not at all: the pictures showed empty
// boxes where the view had messages.
func TestConsoleMessagesInViewArePainted(t *testing.T) {
	bctx, d, id := largeSessionRig(t, 300, 3*claudetest.Timeout)
	for _, size := range []struct {
		name string
		w, h int64
	}{{"desktop", 1200, 900}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			p := tab(t, bctx)
			do(t, p, "size", chromedp.EmulateViewport(size.w, size.h))
			do(t, p, "open the console", chromedp.Navigate(d.ConsoleURL()))
			until(t, p, "the workspace", `document.querySelector('.ws .ws-open')`)
			do(t, p, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible))
			until(t, p, "the session in history", `document.querySelector('.hist[data-session="`+id+`"]')`)
			do(t, p, "open it", chromedp.Click(chromedp.CSS(`.hist[data-session="`+id+`"]`)))
			until(t, p, "the newest message", `document.querySelector('.msg[data-id="m00299"]')`)
			// Older chunks drawn, so that the window is many views tall,
			// and full: past its 120 messages the bottom is dropped as the
			// top is drawn. The message the reader saw stays where it was.
			for range 8 {
				seen := eval[anchored](t, p, scrollToTop)
				if _, err := chromedp.Run(p, chromedp.Poll[bool](`document.querySelector('#transcript').scrollTop > 0 || !document.querySelector('.older')`,
					chromedp.WithPollingTimeout(claudetest.Timeout))); err != nil {
					t.Fatalf("waiting for an older chunk: %v; the page: %s", err, eval[string](t, p, `(() => { const t = document.querySelector('#transcript');
  return JSON.stringify({ top: t.scrollTop, height: t.scrollHeight, client: t.clientHeight, msgs: t.querySelectorAll('.msg').length,
    session: getComputedStyle(document.querySelector('#session')).display, app: document.querySelector('#app').className, banner: document.querySelector('#banner').textContent }); })()`))
				}
				if now := eval[float64](t, p, fmt.Sprintf(`document.querySelector('.msg[data-id="%s"]').getBoundingClientRect().top`, seen.ID)); math.Abs(now-seen.Top) > 4 {
					t.Errorf("scrolling up past %d drawn messages moved message %s from %.0f px to %.0f px", seen.Drawn, seen.ID, seen.Top, now)
				}
			}
			checked := 0
			for _, at := range []float64{1, 0.1, 0.9, 0.35, 0.65, 0, 0.5} {
				if skipped := eval[[]string](t, p, fmt.Sprintf(jumpAndLook, at)); len(skipped) > 0 {
					t.Errorf("at %.2f of the transcript: messages %q are in view with their content not drawn", at, skipped)
				}
				// As shot() takes them, but at once: a picture of the page
				// as it is, where a message in view must show.
				pic, err := chromedp.Run(p, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatalf("screenshot: %v", err)
				}
				v := eval[transcriptView](t, p, inView)
				img, err := png.Decode(bytes.NewReader(pic))
				if err != nil {
					t.Fatal(err)
				}
				empty := false
				for _, m := range v.Msgs {
					shown := box{Top: max(m.Top, v.View.Top), Bottom: min(m.Bottom, v.View.Bottom), Left: m.Left, Right: m.Right}
					if shown.Bottom-shown.Top < 40 {
						continue // a sliver at an edge may show its padding alone
					}
					checked++
					if m.Text == 0 {
						t.Errorf("at %.2f: message %s in view has no text", at, m.ID)
					}
					if ink(img, shown, v.DPR) == 0 {
						empty = true
						t.Errorf("at %.2f: message %s, %.0f px of it in view, is painted as an empty box", at, m.ID, shown.Bottom-shown.Top)
					}
				}
				if empty {
					name := filepath.Join(t.ArtifactDir(), fmt.Sprintf("empty-box-%.2f.png", at))
					if err := os.WriteFile(name, pic, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("the picture: %s", name)
				}
			}
			if checked < 7 {
				t.Errorf("only %d messages checked in 7 views", checked)
			}
		})
	}
}
