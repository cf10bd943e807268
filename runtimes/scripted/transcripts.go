package scripted

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/kit"
)

const transcriptExt = ".jsonl"

// summaryLen bounds a session summary, in characters.
const summaryLen = 80

// projectDir is where the transcripts of workspace dir live: like Claude,
// dir with every character but ASCII letters and digits replaced by '-'.
func projectDir(stateDir, dir string) string {
	slug := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, dir)
	return filepath.Join(stateDir, slug)
}

// store reads the transcripts the fake CLI writes: one JSONL file of
// rpc.Message lines per session.
type store struct {
	root               string
	log                *zap.Logger
	watcher            *fswatch.Watcher // nil: the shared one
	kit.FilePerSession                  // Has, Trash, Watch, Path
}

func newStore(root string, log *zap.Logger, w *fswatch.Watcher) *store {
	t := &store{root: root, log: log, watcher: w}
	t.FilePerSession = kit.FilePerSession{Folder: t.Dir, Ext: transcriptExt, Watcher: w}
	return t
}

var _ runtimes.Transcripts = (*store)(nil)

func (t *store) Dir(dir string) string { return projectDir(t.root, dir) }

func (t *store) file(dir, sessionID string) (string, error) {
	if err := runtimes.ValidSessionID(sessionID); err != nil {
		return "", err
	}
	return filepath.Join(t.Dir(dir), sessionID+transcriptExt), nil
}

func (t *store) List(ctx context.Context, dir string) ([]runtimes.Summary, error) {
	entries, err := os.ReadDir(t.Dir(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	type listed struct {
		sum   runtimes.Summary
		mtime time.Time
	}
	var out []listed
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), transcriptExt)
		if !ok || !e.Type().IsRegular() || runtimes.ValidSessionID(id) != nil {
			continue // not a session: its name could not be used as an id
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		l := listed{sum: runtimes.Summary{SessionID: id, LastUpdated: rpc.FormatTime(info.ModTime())}, mtime: info.ModTime()}
		err = readMessages(filepath.Join(t.Dir(dir), e.Name()), func(m rpc.Message) {
			l.sum.MessageCount++
			if l.sum.Summary == "" && m.Type == rpc.MessageUser {
				l.sum.Summary = summarize(m)
			}
		})
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b listed) int {
		return cmp.Or(b.mtime.Compare(a.mtime), strings.Compare(a.sum.SessionID, b.sum.SessionID))
	})
	sums := make([]runtimes.Summary, len(out))
	for i, l := range out {
		sums[i] = l.sum
	}
	return sums, nil
}

// summarize is a message's text on one line, cut to summaryLen characters.
func summarize(m rpc.Message) string {
	var text []string
	for _, b := range m.Message.Content {
		if b.Type == rpc.BlockText {
			text = append(text, b.Text)
		}
	}
	s := []rune(strings.Join(strings.Fields(strings.Join(text, " ")), " "))
	return string(s[:min(len(s), summaryLen)])
}

// Messages pages a transcript. A limit <= 0 returns every message from
// offset on. Transcripts of the fake are small: each page decodes the file.
func (t *store) Messages(ctx context.Context, dir, sessionID string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	path, err := t.Path(dir, sessionID)
	if err != nil {
		return nil, 0, err
	}
	var all []rpc.Message
	if err := readMessages(path, func(m rpc.Message) { all = append(all, m) }); err != nil {
		return nil, 0, err
	}
	if desc {
		slices.Reverse(all)
	}
	total := len(all)
	offset = min(max(offset, 0), total)
	end := total
	if limit > 0 {
		end = min(offset+limit, total)
	}
	return slices.Clone(all[offset:end]), total, nil
}

// readMessages calls fn with each complete message line of a transcript,
// skipping lines that are not messages and a last line still being written.
func readMessages(path string, fn func(rpc.Message)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = readLines(f, fn)
	return err
}

// readLines decodes the complete lines of r and returns how many bytes they
// took.
func readLines(r io.Reader, fn func(rpc.Message)) (int64, error) {
	br := bufio.NewReader(r)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n += int64(len(line))
		var m rpc.Message
		if json.Unmarshal(line, &m) == nil && m.Type != "" {
			fn(m)
		}
	}
}

// Tail follows a transcript through the shared watcher. A refused watch is
// an *fswatch.Error that says why.
func (t *store) Tail(ctx context.Context, dir, sessionID string, emit func(rpc.Message)) (io.Closer, error) {
	path, err := t.file(dir, sessionID)
	if err != nil {
		return nil, err
	}
	tl := &tail{path: path, emit: emit, log: t.log}
	// Watch the directory, not the file: the file may not exist yet, and
	// it may be replaced. Watching starts before the end is measured so that
	// no append falls in between; events wait for tl.mu meanwhile.
	tl.mu.Lock()
	h, err := fswatch.Or(t.watcher).Watch(t.Dir(dir), tl.onEvent, tl.onError)
	if err != nil {
		tl.mu.Unlock()
		return nil, err
	}
	tl.h = h
	if f, err := os.Open(path); err == nil {
		// From the end of the last complete line: a line being written now
		// is the first one to follow.
		tl.offset, err = readLines(f, func(rpc.Message) {})
		f.Close()
		if err != nil {
			tl.mu.Unlock()
			h.Close()
			return nil, err
		}
	}
	tl.mu.Unlock()
	return tl, nil
}

// tail follows one transcript until closed.
type tail struct {
	h    *fswatch.Handle
	path string
	emit func(rpc.Message)
	log  *zap.Logger

	mu     sync.Mutex
	offset int64 // end of the last complete line delivered
}

func (tl *tail) onEvent(ev fswatch.Event) {
	if ev.Name == tl.path && ev.Has(fswatch.Write|fswatch.Create) {
		tl.mu.Lock()
		defer tl.mu.Unlock()
		tl.read()
	}
}

func (tl *tail) onError(err error) {
	tl.log.Warn("watching a transcript", zap.Error(err))
}

// read delivers the complete lines appended since the last read.
func (tl *tail) read() {
	f, err := os.Open(tl.path)
	if err != nil {
		return // removed again
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() < tl.offset {
		tl.offset = 0 // truncated or replaced: start over
	}
	if _, err := f.Seek(tl.offset, io.SeekStart); err != nil {
		tl.log.Warn("reading a transcript", zap.Error(err))
		return
	}
	n, err := readLines(f, tl.emit)
	tl.offset += n
	if err != nil {
		tl.log.Warn("reading a transcript", zap.Error(err))
	}
}

// Close stops following the transcript; no emit runs once it returns.
func (tl *tail) Close() error { return tl.h.Close() }
