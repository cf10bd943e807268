package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cdevd/cdevd/internal/bench/claudegen"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/runtimes/claude/transcript"
)

// fixtures are what figures set up once and share; each is made on first
// use, so that -only works for any figure.
type fixtures struct {
	memRuns    int
	bigs       int    // big transcripts written so far (each is read once, cold)
	readBig    string // a big transcript cdevd has read
	histories  int    // history workspaces written so far
	listedHist string // a history workspace cdevd has listed
	fanout     *fanout
	tail       *tailFixture
}

// sessionID is the id of the i-th generated session of a kind (a UUID, as
// Claude's are).
func sessionID(kind, i int) string { return fmt.Sprintf("%08d-0000-4000-8000-%012d", kind, i) }

// workspace adds the directory (made if needed) as a workspace on c.
func workspace(c *conn, dir string) (rpc.Workspace, error) {
	var w rpc.Workspace
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return w, err
	}
	_, _, err := c.call(rpc.MethodWorkspaceAdd, rpc.WorkspaceAddParams{Path: dir}, &w)
	return w, err
}

// mainWorkspace is the workspace of the big transcripts and the tail figure.
func (b *Bench) mainWorkspace(c *conn) (rpc.Workspace, error) {
	return workspace(c, b.path("ws", "main"))
}

// projectDir is where Claude keeps the transcripts of sessions run in dir,
// under the bench's HOME.
func (b *Bench) projectDir(dir string) string {
	return transcript.New(filepath.Join(b.path("home"), ".claude", "projects"), nil).Dir(dir)
}

// newBig writes a never-read transcript of about bigTranscript bytes in the
// main workspace and returns its session id and path.
func (b *Bench) newBig() (string, string, error) {
	b.fix.bigs++
	id := sessionID(1, b.fix.bigs)
	dir := b.projectDir(b.path("ws", "main"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	g := claudegen.New(id, b.path("ws", "main"))
	g.Pad = claudegen.LoremPad
	p := filepath.Join(dir, id+".jsonl")
	if err := g.Write(p, b.sz.bigTranscript, 0); err != nil {
		return "", "", err
	}
	settle()
	return id, p, nil
}

// settle writes what the bench just wrote out to disk, so that the
// kernel's write-back does not compete with what is timed next.
func settle() { syscall.Sync() }

// firstPage times the newest page of 50 of a transcript.
func firstPage(c *conn, ws rpc.Workspace, id string) (time.Duration, int, error) {
	var res rpc.MessagesResult
	n, took, err := c.call(rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: ws.ID, SessionID: id,
		AgentType: claude.ID, Limit: 50, Order: rpc.OrderDesc}, &res)
	if err == nil && len(res.Messages) != 50 {
		err = fmt.Errorf("page of %d messages, want 50", len(res.Messages))
	}
	return took, n, err
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

func (b *Bench) pageCold(ctx context.Context) (sample, error) {
	c, err := connect(ctx, b.serve)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	ws, err := b.mainWorkspace(c)
	if err != nil {
		return sample{}, err
	}
	id, p, err := b.newBig()
	if err != nil {
		return sample{}, err
	}
	took, _, err := firstPage(c, ws, id)
	if err != nil {
		return sample{}, err
	}
	b.fix.readBig = id
	base, err := readOnce(p)
	return sample{value: took.Seconds(), base: base}, err
}

// ensureReadBig makes sure a big transcript has been read by cdevd.
func (b *Bench) ensureReadBig(ctx context.Context) error {
	if b.fix.readBig != "" {
		return nil
	}
	_, err := b.pageCold(ctx)
	return err
}

func (b *Bench) pageRestart(ctx context.Context) (sample, error) {
	if err := b.ensureReadBig(ctx); err != nil {
		return sample{}, err
	}
	if err := b.restart(); err != nil {
		return sample{}, err
	}
	c, err := connect(ctx, b.serve)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	ws, err := b.mainWorkspace(c)
	if err != nil {
		return sample{}, err
	}
	took, _, err := firstPage(c, ws, b.fix.readBig)
	if err != nil {
		return sample{}, err
	}
	base, err := readOnce(filepath.Join(b.projectDir(b.path("ws", "main")), b.fix.readBig+".jsonl"))
	return sample{value: took.Seconds(), base: base}, err
}

func (b *Bench) pageWarm(ctx context.Context) (sample, error) {
	if err := b.ensureReadBig(ctx); err != nil {
		return sample{}, err
	}
	c, err := connect(ctx, b.serve)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	ws, err := b.mainWorkspace(c)
	if err != nil {
		return sample{}, err
	}
	if _, _, err := firstPage(c, ws, b.fix.readBig); err != nil { // indexed, if a restart came between
		return sample{}, err
	}
	frame := c.frame(rpc.MethodMessages, rpc.MessagesParams{WorkspaceID: ws.ID, SessionID: b.fix.readBig,
		AgentType: claude.ID, Limit: 50, Order: rpc.OrderDesc})
	return b.interleaved(ctx, c, frame, b.sz.pageCalls)
}

// newHistory writes a workspace of sessions transcripts of 10 to 30 lines
// (5 to 15 messages, each followed by a line that is not one) and returns
// its directory and the transcripts' paths.
func (b *Bench) newHistory() (string, []string, error) {
	b.fix.histories++
	dir := b.path("ws", fmt.Sprintf("history-%d", b.fix.histories))
	pd := b.projectDir(dir)
	if err := os.MkdirAll(pd, 0o700); err != nil {
		return "", nil, err
	}
	paths := make([]string, b.sz.sessions)
	for i := range paths {
		id := sessionID(2+b.fix.histories, i)
		paths[i] = filepath.Join(pd, id+".jsonl")
		if err := claudegen.New(id, dir).Write(paths[i], 0, 5+i%11); err != nil {
			return "", nil, err
		}
	}
	settle()
	return dir, paths, nil
}

// history times one history call and checks that it counted every session.
func (b *Bench) history(c *conn, ws rpc.Workspace) (time.Duration, error) {
	var h rpc.HistoryResult
	_, took, err := c.call(rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: ws.ID, AgentType: claude.ID}, &h)
	if err == nil && h.Total != b.sz.sessions {
		err = fmt.Errorf("history total %d, want %d", h.Total, b.sz.sessions)
	}
	return took, err
}

func (b *Bench) historyFirst(ctx context.Context) (sample, error) {
	dir, paths, err := b.newHistory()
	if err != nil {
		return sample{}, err
	}
	c, err := connect(ctx, b.serve)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	ws, err := workspace(c, dir)
	if err != nil {
		return sample{}, err
	}
	took, err := b.history(c, ws)
	if err != nil {
		return sample{}, err
	}
	b.fix.listedHist = dir
	base, err := readOnce(paths...)
	return sample{value: took.Seconds(), base: base}, err
}

func (b *Bench) ensureListedHistory(ctx context.Context) error {
	if b.fix.listedHist != "" {
		return nil
	}
	_, err := b.historyFirst(ctx)
	return err
}

func (b *Bench) historyLater(ctx context.Context) (sample, error) {
	if err := b.ensureListedHistory(ctx); err != nil {
		return sample{}, err
	}
	c, err := connect(ctx, b.serve)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	ws, err := workspace(c, b.fix.listedHist)
	if err != nil {
		return sample{}, err
	}
	if _, err := b.history(c, ws); err != nil { // listed, if a restart came between
		return sample{}, err
	}
	return b.interleaved(ctx, c, c.frame(rpc.MethodHistory, rpc.HistoryParams{WorkspaceID: ws.ID, AgentType: claude.ID}), b.sz.historyCalls)
}

func (b *Bench) historyRestart(ctx context.Context) (sample, error) {
	if err := b.ensureListedHistory(ctx); err != nil {
		return sample{}, err
	}
	if err := b.restart(); err != nil {
		return sample{}, err
	}
	c, err := connect(ctx, b.serve)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	ws, err := workspace(c, b.fix.listedHist)
	if err != nil {
		return sample{}, err
	}
	took, err := b.history(c, ws)
	if err != nil {
		return sample{}, err
	}
	paths, err := filepath.Glob(filepath.Join(b.projectDir(b.fix.listedHist), "*.jsonl"))
	if err != nil {
		return sample{}, err
	}
	base, err := readOnce(paths...)
	return sample{value: took.Seconds(), base: base}, err
}
