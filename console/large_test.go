package console_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/console"
	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// largeSession is the large session, which the benchmark opens;
// the test opens a smaller one, enough for many pages and for the window
// to slide (a 5,000-message scroll under -race on a busy machine takes
// minutes, and how fast it goes is the benchmark's to say).
const (
	largeSession = 5000
	testSession  = 800
)

// largeTranscript is n messages of a working session: prompts, answers
// in markdown with code, and every fifth exchange a command and its output.
func largeTranscript(sessionID string, n int) []byte {
	var b strings.Builder
	start := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		m := rpc.Message{ID: fmt.Sprintf("m%05d", i), UUID: fmt.Sprintf("m%05d", i), SessionID: sessionID,
			Timestamp: rpc.FormatTime(start.Add(time.Duration(i) * time.Second))}
		switch {
		case i%10 == 8:
			m.Type = rpc.MessageAssistant
			in, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("go test ./pkg%d/...", i), "description": "Run the tests"})
			m.Message.Content = []rpc.ContentBlock{{Type: rpc.BlockToolUse, ID: fmt.Sprintf("t%d", i), Name: "Bash", Input: in}}
		case i%10 == 9:
			m.Type = rpc.MessageUser
			out, _ := json.Marshal(strings.Repeat(fmt.Sprintf("ok  \tgithub.com/x/pkg%d\t0.%03ds\n", i, i%1000), 6))
			m.Message.Content = []rpc.ContentBlock{{Type: rpc.BlockToolResult, ToolUseID: fmt.Sprintf("t%d", i-1), Content: out}}
		case i%2 == 0:
			m.Type = rpc.MessageUser
			m.Message.Content = []rpc.ContentBlock{{Type: rpc.BlockText, Text: fmt.Sprintf("Step %d: make the parser handle case %d", i, i)}}
		default:
			m.Type = rpc.MessageAssistant
			m.Message.Content = []rpc.ContentBlock{{Type: rpc.BlockText, Text: fmt.Sprintf(
				"## Case %d\n\nThe parser now handles it **without** a special path:\n\n- reads the token\n- checks `case%d`\n\n```go\nfunc case%d(t Token) bool {\n\treturn t.Kind == %d\n}\n```", i, i, i, i)}}
		}
		m.Message.Role = string(m.Type)
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// compareWith is another build of the console (a directory holding its
// index.html, app.js and style.css) for the benchmark to open beside
// today's and the one before issue 27, as a third in the same run; e.g.
// main's, from `git archive main console/dist | tar -x -C /tmp/main`:
//
//	go test ./console -run '^$' -bench ConsoleLargeSession -benchtime 1x -args -compare-with /tmp/main/console/dist
var compareWith = flag.String("compare-with", "", "a directory holding another build of the console, for BenchmarkConsoleLargeSession to open beside today's")

// consoleFrom serves the console built in dir on its own port, passing
// /ws and /healthz to cdevd with the page's Host, so cdevd sees its
// console's own origin.
func consoleFrom(t testing.TB, d *daemon.Daemon, dir string) string {
	t.Helper()
	target := &url.URL{Scheme: "http", Host: d.Addr()}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Host = r.In.Host
	}}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ws" || r.URL.Path == "/healthz" {
			proxy.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Security-Policy", console.CSP)
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, frag, _ := strings.Cut(d.ConsoleURL(), "#")
	return srv.URL + "/#" + frag
}

// openAndScroll opens the session from history, pages every older
// message in by keeping the view at the top (as a reader flinging up
// would), then scrolls the whole transcript from its first message to its
// last. It returns, in milliseconds, the time from the click to the first
// message drawn, to the answers in view rendered (none left drawn plain:
// the first message for a console that draws them rich at once), the
// longest frame while pages came in, and the longest frame of the full
// scroll.
const openAndScroll = `new Promise((done) => {
  const t = document.querySelector('#transcript');
  const item = document.querySelector('.hist[data-session="%[1]s"]');
  let first = 0, rich = 0;
  const t0 = performance.now();
  const seen = new MutationObserver(() => {
    if (!first && t.querySelector('.msg')) {
      first = performance.now() - t0;
      seen.disconnect();
      requestAnimationFrame(rendered);
    }
  });
  const view = () => t.getBoundingClientRect();
  const plainInView = () => [...t.querySelectorAll('.md-pending')].some((e) => {
    const r = e.getBoundingClientRect(), v = view();
    return r.bottom > v.top && r.top < v.bottom;
  });
  function rendered() {
    const now = performance.now();
    if (plainInView() && now - t0 < 60000) return requestAnimationFrame(rendered);
    rich = now - t0;
    if (!%[3]t) return finish();
    requestAnimationFrame(() => requestAnimationFrame(pageIn));
  }
  seen.observe(t, { childList: true, subtree: true });
  item.click();
  let last = 0, pagingLongest = 0, scrollLongest = 0, frames = 0;
  // The machine may be shared: generous limits, each phase its own.
  let deadline = performance.now() + 120000;
  const all = () => !t.querySelector('.older') && t.querySelector('.msg[data-id="m00000"]');
  let reachedFirst = false;
  const finish = () => done({ first, rich, pagingLongest, scrollLongest, frames, reachedFirst, reachedLast: !!t.querySelector('.msg[data-id="%[2]s"]'), drawn: t.querySelectorAll('.msg').length });
  function pageIn(now) {
    if (last) pagingLongest = Math.max(pagingLongest, now - last);
    last = now;
    // Past the deadline, what was paged in is scrolled all the same: a
    // console too slow to page everything in still has its scroll measured.
    if (all() || now > deadline) {
      reachedFirst = !!all();
      deadline = now + 90000;
      t.scrollTop = 0;
      last = 0;
      return requestAnimationFrame(scroll);
    }
    t.scrollTop = 0;
    t.dispatchEvent(new Event('scroll'));
    requestAnimationFrame(pageIn);
  }
  function scroll(now) {
    if (last) scrollLongest = Math.max(scrollLongest, now - last);
    last = now;
    frames++;
    if ((t.scrollTop + t.clientHeight >= t.scrollHeight - 1 && t.querySelector('.msg[data-id="%[2]s"]')) || now > deadline) return finish();
    t.scrollTop += 4000;
    t.dispatchEvent(new Event('scroll'));
    requestAnimationFrame(scroll);
  }
})`

type scrollFigures struct {
	First         float64 `json:"first"`
	Rich          float64 `json:"rich"`
	PagingLongest float64 `json:"pagingLongest"`
	ScrollLongest float64 `json:"scrollLongest"`
	Frames        int     `json:"frames"`
	ReachedFirst  bool    `json:"reachedFirst"`
	ReachedLast   bool    `json:"reachedLast"`
	Drawn         int     `json:"drawn"`
}

// largeSessionRig starts cdevd with a stopped session whose stored
// transcript holds n messages, and a browser; it returns the
// browser, the daemon and the session's id.
func largeSessionRig(t testing.TB, n int, limit time.Duration) (context.Context, *daemon.Daemon, string) {
	bctx := browserFor(t, limit)
	ws, state := t.TempDir(), t.TempDir()
	d := startDaemon(t, daemon.Config{Workspaces: []string{ws}, Adapters: []runtimes.Adapter{
		scripted.New(scripted.Config{Bin: os.Args[0], StateDir: state}),
	}})
	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	until(t, a, "the workspace", `document.querySelector('.ws .ws-open')`)
	do(t, a, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible))
	do(t, a, "start a session", chromedp.Click(chromedp.CSS("#start"), chromedp.NodeVisible))
	until(t, a, "the session", `document.querySelector('#session').dataset.session`)
	id := eval[string](t, a, "document.querySelector('#session').dataset.session")
	setPrompt(t, a, "hello")
	until(t, a, "the answer", has(".msg.assistant:not(.streaming)", "echo: hello"))
	do(t, a, "stop", chromedp.Click(chromedp.CSS("#stop")))
	until(t, a, "stopped", `document.querySelector('#state').textContent === 'stopped'`)
	// The session's stored transcript becomes a long one.
	files, _ := filepath.Glob(filepath.Join(state, "*", id+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("transcript of %s: %v", id, files)
	}
	if err := os.WriteFile(files[0], largeTranscript(id, n), 0o600); err != nil {
		t.Fatal(err)
	}
	return bctx, d, id
}

// openLarge opens the console at url in a new tab, opens the large
// session from history and scrolls it through (openAndScroll).
func openLarge(t testing.TB, bctx context.Context, url, id string, n int) scrollFigures {
	return openIn(t, bctx, url, id, n, true)
}

// openIn is openLarge, or (scroll false) the opening alone: the figures
// up to the answers in view rendered.
func openIn(t testing.TB, bctx context.Context, url, id string, n int, scroll bool) scrollFigures {
	p := tab(t, bctx)
	do(t, p, "open the console", chromedp.Navigate(url))
	until(t, p, "the workspace", `document.querySelector('.ws .ws-open')`)
	do(t, p, "pick the workspace", chromedp.Click(chromedp.CSS(`.ws .ws-open`), chromedp.NodeVisible))
	until(t, p, "the session in history", `document.querySelector('.hist[data-session="`+id+`"]')`)
	f, err := chromedp.Run(p, chromedp.Evaluate[scrollFigures](fmt.Sprintf(openAndScroll, id, fmt.Sprintf("m%05d", n-1), scroll), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("open and scroll: %v", err)
	}
	return f
}

// A long session opens and scrolls through from its first
// message to its last, drawn a window at a time: the page keeps a small
// part of it. How fast is BenchmarkConsoleLargeSession's to say.
func TestConsoleLargeSession(t *testing.T) {
	bctx, d, id := largeSessionRig(t, testSession, 3*claudetest.Timeout)
	f := openLarge(t, bctx, d.ConsoleURL(), id, testSession)
	if !f.ReachedFirst || !f.ReachedLast {
		t.Errorf("the scroll reached the first message: %v, the last again: %v", f.ReachedFirst, f.ReachedLast)
	}
	if f.Drawn >= testSession/2 {
		t.Errorf("the console has %d of %d messages in the page", f.Drawn, testSession)
	}
}

// BenchmarkConsoleLargeSession opens and scrolls the 5,000-message session
// in today's console and, in the same run, the console before issue 27
// (and the build -compare-with names, if any), and reports each one's
// times to the first message drawn and to the answers in view rendered,
// and longest frames (ms), with today's over the earlier ones' as ratios:
//
//	go test ./console -run '^$' -bench ConsoleLargeSession -benchtime 1x
func BenchmarkConsoleLargeSession(b *testing.B) {
	// Each console may take minutes to page in and scroll through on a
	// busy machine (openAndScroll's limits).
	bctx, d, id := largeSessionRig(b, largeSession, 15*time.Minute)
	others := []struct{ name, url string }{{"before", consoleFrom(b, d, "testdata/console-before-27")}}
	if *compareWith != "" {
		others = append(others, struct{ name, url string }{"compared", consoleFrom(b, d, *compareWith)})
	}
	for b.Loop() {
		// Each in turn, the earlier ones first: the first to open pays
		// for reading the transcript cold, which favours today's.
		var figures []scrollFigures
		for _, o := range others {
			f := openLarge(b, bctx, o.url, id, largeSession)
			b.Logf("%s: %+v", o.name, f)
			figures = append(figures, f)
		}
		now := openLarge(b, bctx, d.ConsoleURL(), id, largeSession)
		b.Logf("today: %+v", now)
		report(b, "", now)
		for i, o := range others {
			old := figures[i]
			report(b, o.name+"-", old)
			if old.First > 0 && old.ScrollLongest > 0 {
				b.ReportMetric(now.First/old.First, o.name+"-first-ratio")
				b.ReportMetric(now.ScrollLongest/old.ScrollLongest, o.name+"-scroll-ratio")
			}
		}
	}
}

func report(b *testing.B, prefix string, f scrollFigures) {
	b.ReportMetric(f.First, prefix+"first-ms")
	b.ReportMetric(f.Rich, prefix+"rich-ms")
	b.ReportMetric(f.PagingLongest, prefix+"paging-longest-ms")
	b.ReportMetric(f.ScrollLongest, prefix+"scroll-longest-ms")
	if !f.ReachedFirst || !f.ReachedLast {
		b.Logf("%sincomplete within the limits (first message paged in: %v, last scrolled to: %v): it scrolled what it had", prefix, f.ReachedFirst, f.ReachedLast)
	}
}

// BenchmarkConsoleOpenLargeSession opens the 5,000-message session (no
// scroll) in each console in turn, -benchtime times, and reports each
// one's median times to the first message drawn and to the answers in
// view rendered (ms): a busy machine makes one opening's figures noise.
//
//	go test ./console -run '^$' -bench ConsoleOpenLargeSession -benchtime 5x
func BenchmarkConsoleOpenLargeSession(b *testing.B) {
	bctx, d, id := largeSessionRig(b, largeSession, 15*time.Minute)
	consoles := []struct{ name, url string }{{"before-", consoleFrom(b, d, "testdata/console-before-27")}}
	if *compareWith != "" {
		consoles = append(consoles, struct{ name, url string }{"compared-", consoleFrom(b, d, *compareWith)})
	}
	consoles = append(consoles, struct{ name, url string }{"", d.ConsoleURL()})
	first := make([][]float64, len(consoles))
	rich := make([][]float64, len(consoles))
	for b.Loop() {
		for i, c := range consoles {
			f := openIn(b, bctx, c.url, id, largeSession, false)
			first[i] = append(first[i], f.First)
			rich[i] = append(rich[i], f.Rich)
		}
	}
	for i, c := range consoles {
		b.Logf("%sfirst %v rich %v", c.name, first[i], rich[i])
		b.ReportMetric(median(first[i]), c.name+"first-ms")
		b.ReportMetric(median(rich[i]), c.name+"rich-ms")
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
