// Package bench is `cdevd bench`: it measures the figures of cdevd's
// performance table as a new user would see them, and prints the table.
//
// The bench process is only the client. It starts `cdevd serve` (this same
// binary, with a temporary HOME and CDEVD_HOME, the agent runtimes and the
// scripted runtime registered by --bench-runtime) and a bare
// gorilla/websocket echo server (`cdevd bench-echo`) as separate processes,
// and drives both over loopback. Each figure is measured Reps times and the
// median is reported next to a baseline measured in the same run (the echo
// of the same bytes where the figure is a ratio), so that the machine's
// speed and load blur the ratio less than the absolute numbers.
//
// It writes its own synthetic Claude, Codex and Gemini transcripts
// (packages claudegen, codexgen, geminigen) under the temporary HOME and
// removes everything when done.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/cdevd/cdevd/runtimes"
)

// Options configures a run.
type Options struct {
	Self string // the cdevd binary (os.Executable())
	// CLIs are the agent CLIs cdevd serve detects, by the variable that
	// names each (CLAUDE_BIN, CODEX_BIN, GEMINI_BIN): their runtimes must be
	// available for cdevd to serve their transcripts.
	CLIs map[string]string
	// Runtimes are what the registered runtimes declare, in registration
	// order: the transcript figures are measured for each the bench can
	// write transcripts for.
	Runtimes []runtimes.Info
	Quick    bool   // smaller sizes: a smoke test, not a measurement
	Only     string // figures' keys, between commas; "" runs them all
	Reps     int    // repetitions of each figure (default 3)
	Out      io.Writer
	Log      io.Writer // progress; nil is quiet
}

// Bench is one run.
type Bench struct {
	opts  Options
	sz    sizes
	root  string // temporary directory, removed at the end
	token string
	serve *proc
	echo  *proc
	fix   fixtures

	mu          sync.Mutex
	live        map[*proc]struct{} // children running
	interrupted bool
}

// Figures lists the figures' keys for the registered runtimes, in table
// order (for -only).
func Figures(infos []runtimes.Info) []string {
	var keys []string
	for _, f := range figuresFor(infos) {
		keys = append(keys, f.key)
	}
	return keys
}

// FindCLIs finds the CLIs of the runtimes whose transcripts the bench
// reads (cdevd must detect each to serve them), by the variable each
// declares: its value, else the command on PATH, else the pinned copy npm
// ci installs under ./node_modules/.bin.
func FindCLIs(infos []runtimes.Info) (map[string]string, error) {
	found := map[string]string{}
	var missing []string
	for _, info := range infos {
		c := info.CLI
		if _, ok := stores[info.ID]; !ok || c.BinEnv == "" {
			continue
		}
		for _, cand := range []string{os.Getenv(c.BinEnv), c.Command, filepath.Join("node_modules", ".bin", c.Command)} {
			if cand == "" {
				continue
			}
			if p, err := exec.LookPath(cand); err == nil {
				if found[c.BinEnv], err = filepath.Abs(p); err != nil {
					return nil, err
				}
				break
			}
		}
		if found[c.BinEnv] == "" {
			missing = append(missing, c.Command+" ("+c.BinEnv+")")
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no %s CLI (cdevd needs each to serve its transcripts): set the variable, "+
			"put the command on PATH, or run `npm ci` here for node_modules/.bin", strings.Join(missing, ", "))
	}
	return found, nil
}

// Run measures the figures and prints the table.
func Run(ctx context.Context, opts Options) (err error) {
	if opts.Reps <= 0 {
		opts.Reps = 3
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	figures := figuresFor(opts.Runtimes)
	todo := figures
	if opts.Only != "" {
		todo = nil
		for _, key := range strings.Split(opts.Only, ",") {
			i := slices.IndexFunc(figures, func(f figure) bool { return f.key == key })
			if i < 0 {
				return fmt.Errorf("-only %q: not one of %s", key, strings.Join(Figures(opts.Runtimes), ", "))
			}
			todo = append(todo, figures[i])
		}
	}
	root, err := os.MkdirTemp("", "cdevd-bench-")
	if err != nil {
		return err
	}
	// Canonical, so that the transcript folders the bench writes are where
	// cdevd (which resolves symlinks) looks.
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return err
	}
	b := &Bench{opts: opts, sz: fullSizes, root: root, token: newToken(), live: map[*proc]struct{}{}}
	if opts.Quick {
		b.sz = quickSizes
	}
	// Measuring loops do not watch ctx: killing the children ends them.
	defer context.AfterFunc(ctx, b.interrupt)()
	defer func() {
		b.closeFixtures()
		err = errors.Join(err, b.closeAgent(), b.serve.stop(), b.echo.stop())
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		if err != nil {
			err = fmt.Errorf("%w\n(logs of cdevd and the echo server kept in %s)", errors.Join(err, b.cleanUp(true)), root)
			return
		}
		err = b.cleanUp(false)
	}()
	if b.serve, err = b.startServe(b.path("home"), b.path("cdevd")); err != nil {
		return err
	}
	if b.echo, err = b.startEcho(); err != nil {
		return err
	}
	var rows []row
	for _, f := range todo {
		fmt.Fprintf(opts.Log, "bench: %s…\n", b.sz.replacer().Replace(f.title))
		var samples []sample
		for range opts.Reps {
			s, err := f.measure(b, ctx)
			if err != nil {
				return fmt.Errorf("%s: %w", f.key, err)
			}
			samples = append(samples, s)
		}
		r := f.row(samples)
		r.title = b.sz.replacer().Replace(r.title)
		rows = append(rows, r)
	}
	return printTable(opts.Out, rows)
}

// cleanUp removes the run's directory; a failed run keeps its children's
// logs there, for its reader, and removes the rest (transcripts, homes).
func (b *Bench) cleanUp(keepLogs bool) error {
	if !keepLogs {
		return os.RemoveAll(b.root)
	}
	entries, err := os.ReadDir(b.root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".log") {
			err = errors.Join(err, os.RemoveAll(b.path(e.Name())))
		}
	}
	return err
}

// path is a path under the run's temporary directory.
func (b *Bench) path(elem ...string) string {
	return filepath.Join(append([]string{b.root}, elem...)...)
}

// restart stops the served daemon and starts it again on the same homes.
func (b *Bench) restart() error {
	b.closeFixtures() // their connections end with the daemon
	if err := b.serve.stop(); err != nil {
		return fmt.Errorf("stop cdevd: %w", err)
	}
	var err error
	b.serve, err = b.startServe(b.path("home"), b.path("cdevd"))
	return err
}

// sizes are the workloads: the in a full run, small ones in -quick.
type sizes struct {
	listCalls     int   // workspace/list round trips per repetition
	initCalls     int   // fresh connections initialized per repetition
	idleConns     int   // connections held for the memory figure
	bigTranscript int64 // bytes
	pageCalls     int   // page round trips of an indexed transcript
	sessions      int   // transcripts in the history workspace
	historyCalls  int   // later history calls
	watchers      int
	burst         int // deltas in a burst
	steadySeconds int
	steadyRate    int // events per second
	appends       int // transcript lines appended for the tail figure
	repoFiles     int // files of the generated repository
	repoChanged   int // of them changed since its commit
	repoCalls     int // git/status calls and snapshots per repetition (each side)
	searchCalls   int // repository/search round trips after the first query
	fileCalls     int // workspace/file/get round trips of the 1 MB file
	imageSide     int // the attached image's width and height: noise, about 4·side² bytes as PNG
	imageSends    int // images sent per repetition (each side)
	handovers     int // queue hand-overs per repetition (each side)
}

var fullSizes = sizes{listCalls: 2000, initCalls: 300, idleConns: 1000, bigTranscript: 100 << 20, pageCalls: 200,
	sessions: 1000, historyCalls: 50, watchers: 100, burst: 500, steadySeconds: 10, steadyRate: 1000, appends: 200,
	repoFiles: 100_000, repoChanged: 1_000, repoCalls: 5, searchCalls: 200, fileCalls: 100,
	imageSide: 1120, imageSends: 3, handovers: 5}

var quickSizes = sizes{listCalls: 100, initCalls: 20, idleConns: 50, bigTranscript: 2 << 20, pageCalls: 10,
	sessions: 50, historyCalls: 5, watchers: 5, burst: 50, steadySeconds: 1, steadyRate: 200, appends: 10,
	repoFiles: 2_000, repoChanged: 20, repoCalls: 3, searchCalls: 20, fileCalls: 10,
	imageSide: 300, imageSends: 1, handovers: 2}

// replacer fills in a figure's title the sizes of this run.
func (s sizes) replacer() *strings.Replacer {
	return strings.NewReplacer("{conns}", strconv.Itoa(s.idleConns), "{big}", fmt.Sprintf("%d MB", s.bigTranscript>>20),
		"{sessions}", strconv.Itoa(s.sessions), "{watchers}", strconv.Itoa(s.watchers), "{burst}", strconv.Itoa(s.burst),
		"{rate}", strconv.Itoa(s.steadyRate), "{seconds}", strconv.Itoa(s.steadySeconds),
		"{files}", commas(s.repoFiles), "{changed}", commas(s.repoChanged),
		"{image}", fmt.Sprintf("%.1f MB", 4*float64(s.imageSide*s.imageSide)/1e6))
}

// printTable writes the one table: tab-aligned, one row per figure. CDEVD,
// BASELINE and RATIO are medians over the repetitions; SPREAD is the lowest
// and highest of the repetitions' ratios (or values, without a baseline),
// to tell a change from the machine's noise.
func printTable(w io.Writer, rows []row) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tCDEVD\tBASELINE\tRATIO\tSPREAD\tTARGET\tMET")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.title, r.value, r.baseline, r.ratio, r.spread, r.target, r.met)
	}
	return tw.Flush()
}
