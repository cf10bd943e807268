package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/transcript"
	"github.com/cdevd/cdevd/runtimes/codex"
	"github.com/cdevd/cdevd/runtimes/gemini"
	"github.com/cdevd/cdevd/testdoubles/claudegen"
	"github.com/cdevd/cdevd/testdoubles/codexgen"
	"github.com/cdevd/cdevd/testdoubles/geminigen"
)

// fixtures are what figures set up once and share; each is made on first
// use, so that -only works for any figure.
type fixtures struct {
	memRuns int
	stores  map[string]*storeFixtures // by agent type
	fanout  *fanout
	tail    *tailFixture
	repo    *repoFixture
	agent   *agentFixture
}

// storeFixtures are one runtime's transcripts written so far.
type storeFixtures struct {
	bigs        int    // big transcripts written (each is read once, cold)
	readBig     string // a big transcript cdevd has read
	readBigPath string
	histories   int      // history workspaces written
	listedHist  string   // the history workspace cdevd has listed
	histPaths   []string // its transcripts
}

// store is a runtime whose stored sessions the transcript figures read:
// where its CLI keeps a session and how to write one as the CLI would.
type store struct {
	agent, name string
	// path is where the CLI keeps session id run in dir, under home.
	path func(home, dir, id string) string
	// write writes session id run in dir to p: about size bytes of long
	// answers, or lines lines.
	write func(p, dir, id string, size int64, lines int) error
}

// stores are the runtimes whose transcripts the bench writes, as their
// CLIs would, by runtime id.
var stores = map[string]store{
	claude.ID: {agent: claude.ID, name: "Claude",
		path: func(home, dir, id string) string {
			return filepath.Join(transcript.New(filepath.Join(home, ".claude", "projects"), nil).Dir(dir), id+".jsonl")
		},
		write: func(p, dir, id string, size int64, lines int) error {
			g := claudegen.New(id, dir)
			if size > 0 {
				g.Pad = claudegen.LoremPad
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return err
			}
			return g.Write(p, size, lines/2) // a message and a line that is not one
		}},
	codex.ID: {agent: codex.ID, name: "Codex",
		path: func(home, dir, id string) string { return codexgen.New(id, dir).Path(filepath.Join(home, ".codex")) },
		write: func(p, dir, id string, size int64, lines int) error {
			g := codexgen.New(id, dir)
			if size > 0 {
				g.Pad = claudegen.LoremPad
			}
			return g.Write(p, size, lines)
		}},
	gemini.ID: {agent: gemini.ID, name: "Gemini",
		path: func(home, dir, id string) string { return geminigen.New(id, dir).Path(filepath.Join(home, ".gemini")) },
		write: func(p, dir, id string, size int64, lines int) error {
			g := geminigen.New(id, dir)
			if size > 0 {
				g.Pad = claudegen.LoremPad
			}
			return g.Write(p, size, lines)
		}},
}

// of is the bench's fixtures of st.
func (b *Bench) of(st store) *storeFixtures {
	if b.fix.stores == nil {
		b.fix.stores = map[string]*storeFixtures{}
	}
	f := b.fix.stores[st.agent]
	if f == nil {
		f = &storeFixtures{}
		b.fix.stores[st.agent] = f
	}
	return f
}

// sessionID is the i-th generated session id of a kind: a UUID, as every
// CLI's are, unique in its first 8 characters (Gemini names files by them).
func sessionID(kind, i int) string { return fmt.Sprintf("%08d-%04d-4000-8000-000000000000", i, kind) }

// workspace adds the directory (made if needed) as a workspace on c.
func workspace(c *conn, dir string) (rpc.Workspace, error) {
	var w rpc.Workspace
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return w, err
	}
	_, _, err := c.call(rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	return w, err
}

// mainWorkspace is the workspace of the round-trip and tail figures.
func (b *Bench) mainWorkspace(c *conn) (rpc.Workspace, error) {
	return workspace(c, b.path("ws", "main"))
}

// projectDir is where Claude keeps the transcripts of sessions run in dir,
// under the bench's HOME.
func (b *Bench) projectDir(dir string) string {
	return transcript.New(filepath.Join(b.path("home"), ".claude", "projects"), nil).Dir(dir)
}

// mainDir is the workspace of st's big transcripts.
func (b *Bench) mainDir(st store) string { return b.path("ws", st.agent+"-main") }

// newBig writes a never-read transcript of about bigTranscript bytes in
// st's main workspace and returns its session id and path.
func (b *Bench) newBig(st store) (string, string, error) {
	f := b.of(st)
	f.bigs++
	id := sessionID(1, f.bigs)
	p := st.path(b.path("home"), b.mainDir(st), id)
	if err := st.write(p, b.mainDir(st), id, b.sz.bigTranscript, 0); err != nil {
		return "", "", err
	}
	settle()
	return id, p, nil
}

// settle writes what the bench just wrote out to disk, so that the
// kernel's write-back does not compete with what is timed next.
func settle() { syscall.Sync() }

// firstPage times the newest page of 50 of a transcript.
func firstPage(c *conn, st store, ws rpc.Workspace, id string) (time.Duration, error) {
	var res rpc.MessagesResult
	_, took, err := c.call(rpc.MethodMessages, pageParams(st, ws, id), &res)
	if err == nil && len(res.Messages) != 50 {
		err = fmt.Errorf("page of %d messages, want 50", len(res.Messages))
	}
	return took, err
}

func pageParams(st store, ws rpc.Workspace, id string) rpc.MessagesParams {
	return rpc.MessagesParams{WorkspaceID: ws.ID, SessionID: id, AgentType: st.agent, Limit: 50, Order: rpc.OrderDesc}
}

// readOnce is the baseline of a first touch: reading the files once, start
// to end, in the client.
func readOnce(paths ...string) (float64, error) {
	buf := make([]byte, 1<<20)
	start := time.Now()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return 0, err
		}
		_, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
		f.Close()
		if err != nil {
			return 0, err
		}
	}
	return time.Since(start).Seconds(), nil
}

// connectTo connects and adds the workspace dir.
func (b *Bench) connectTo(ctx context.Context, dir string) (*conn, rpc.Workspace, error) {
	c, err := connect(ctx, b.serve)
	if err != nil {
		return nil, rpc.Workspace{}, err
	}
	ws, err := workspace(c, dir)
	if err != nil {
		c.close()
		return nil, rpc.Workspace{}, err
	}
	return c, ws, nil
}

func (b *Bench) pageCold(ctx context.Context, st store) (sample, error) {
	c, ws, err := b.connectTo(ctx, b.mainDir(st))
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	id, p, err := b.newBig(st)
	if err != nil {
		return sample{}, err
	}
	took, err := firstPage(c, st, ws, id)
	if err != nil {
		return sample{}, err
	}
	f := b.of(st)
	f.readBig, f.readBigPath = id, p
	base, err := readOnce(p)
	return sample{value: took.Seconds(), base: base}, err
}

// ensureReadBig makes sure a big transcript of st has been read by cdevd.
func (b *Bench) ensureReadBig(ctx context.Context, st store) error {
	if b.of(st).readBig != "" {
		return nil
	}
	_, err := b.pageCold(ctx, st)
	return err
}

func (b *Bench) pageRestart(ctx context.Context, st store) (sample, error) {
	if err := b.ensureReadBig(ctx, st); err != nil {
		return sample{}, err
	}
	if err := b.restart(); err != nil {
		return sample{}, err
	}
	c, ws, err := b.connectTo(ctx, b.mainDir(st))
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	f := b.of(st)
	took, err := firstPage(c, st, ws, f.readBig)
	if err != nil {
		return sample{}, err
	}
	base, err := readOnce(f.readBigPath)
	return sample{value: took.Seconds(), base: base}, err
}

func (b *Bench) pageWarm(ctx context.Context, st store) (sample, error) {
	if err := b.ensureReadBig(ctx, st); err != nil {
		return sample{}, err
	}
	c, ws, err := b.connectTo(ctx, b.mainDir(st))
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	f := b.of(st)
	if _, err := firstPage(c, st, ws, f.readBig); err != nil { // indexed, if a restart came between
		return sample{}, err
	}
	return b.interleaved(ctx, c, c.frame(rpc.MethodMessages, pageParams(st, ws, f.readBig)), b.sz.pageCalls)
}

// newHistory writes a workspace of sessions of 10 to 30 lines each and
// makes it st's history workspace. The previous one's transcripts are
// removed first: Codex keeps every workspace's rollouts in one tree, so
// that each repetition lists the same number of files.
func (b *Bench) newHistory(st store) error {
	f := b.of(st)
	for _, p := range f.histPaths {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	f.histories++
	f.listedHist, f.histPaths = "", nil
	dir := b.path("ws", fmt.Sprintf("%s-history-%d", st.agent, f.histories))
	paths := make([]string, b.sz.sessions)
	for i := range paths {
		id := sessionID(10+f.histories, i) // kinds 1 and 2: big and tail transcripts
		paths[i] = st.path(b.path("home"), dir, id)
		if err := st.write(paths[i], dir, id, 0, 10+2*(i%11)); err != nil {
			return err
		}
	}
	settle()
	f.listedHist, f.histPaths = dir, paths
	return nil
}

// history times one history call and checks that it counted every session.
func (b *Bench) history(c *conn, st store, ws rpc.Workspace) (time.Duration, error) {
	var h rpc.HistoryResult
	_, took, err := c.call(rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: ws.ID, AgentType: st.agent}, &h)
	if err == nil && h.Total != b.sz.sessions {
		err = fmt.Errorf("history total %d, want %d", h.Total, b.sz.sessions)
	}
	return took, err
}

func (b *Bench) historyFirst(ctx context.Context, st store) (sample, error) {
	if err := b.newHistory(st); err != nil {
		return sample{}, err
	}
	f := b.of(st)
	c, ws, err := b.connectTo(ctx, f.listedHist)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	took, err := b.history(c, st, ws)
	if err != nil {
		return sample{}, err
	}
	base, err := readOnce(f.histPaths...)
	return sample{value: took.Seconds(), base: base}, err
}

func (b *Bench) ensureListedHistory(ctx context.Context, st store) error {
	if b.of(st).listedHist != "" {
		return nil
	}
	_, err := b.historyFirst(ctx, st)
	return err
}

func (b *Bench) historyLater(ctx context.Context, st store) (sample, error) {
	if err := b.ensureListedHistory(ctx, st); err != nil {
		return sample{}, err
	}
	c, ws, err := b.connectTo(ctx, b.of(st).listedHist)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	if _, err := b.history(c, st, ws); err != nil { // listed, if a restart came between
		return sample{}, err
	}
	return b.interleaved(ctx, c, c.frame(rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: ws.ID, AgentType: st.agent}), b.sz.historyCalls)
}

func (b *Bench) historyRestart(ctx context.Context, st store) (sample, error) {
	if err := b.ensureListedHistory(ctx, st); err != nil {
		return sample{}, err
	}
	if err := b.restart(); err != nil {
		return sample{}, err
	}
	f := b.of(st)
	c, ws, err := b.connectTo(ctx, f.listedHist)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	took, err := b.history(c, st, ws)
	if err != nil {
		return sample{}, err
	}
	base, err := readOnce(f.histPaths...)
	return sample{value: took.Seconds(), base: base}, err
}
