package lineindex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

// factIndex is an index whose facts (every line it saw) are persisted.
type factIndex struct {
	plain
	all []string
}

func (x *factIndex) add(b []byte) bool {
	x.all = append(x.all, string(b))
	return !strings.HasPrefix(string(b), "#")
}

func (x *factIndex) Merge(y *factIndex) { x.all = append(x.all, y.all...) }

func (x *factIndex) AppendFacts(b []byte) []byte { return append(b, strings.Join(x.all, "\n")...) }

func (x *factIndex) ReadFacts(b []byte) error {
	x.all = nil
	if len(b) > 0 {
		x.all = strings.Split(string(b), "\n")
	}
	return nil
}

// persistEnv is a transcript-like file and the directory its index is
// persisted in, with persistence bounds small enough for test files.
type persistEnv struct {
	t          *testing.T
	tuning     Tuning // the caches' (openCache)
	path, dir  string
	fullScans  int
	bytesRead  int64
	lineNumber int
}

func newPersistEnv(t *testing.T) *persistEnv {
	d := t.TempDir()
	e := &persistEnv{t: t, path: filepath.Join(d, "s.jsonl"), dir: filepath.Join(d, "cache"), tuning: Tuning{PersistMin: 1}}
	writeFile(t, e.path, e.lines(300)) // longer than the checksummed tail
	return e
}

// lines returns n new lines, every fifth a comment the index does not keep.
func (e *persistEnv) lines(n int) string {
	var b strings.Builder
	for range n {
		e.lineNumber++
		if e.lineNumber%5 == 0 {
			fmt.Fprintf(&b, "# note %d\n", e.lineNumber)
		} else {
			fmt.Fprintf(&b, `{"n":%d,"pad":"%s"}`+"\n", e.lineNumber, strings.Repeat("x", e.lineNumber%17))
		}
	}
	return b.String()
}

// cache is a new Cache, as after a restart, persisting under version. It
// is closed at once, so that it saves in line and each test sees the
// directory as a read left it (TestSaveAfterTheRead covers the saves made
// apart from the read).
func (e *persistEnv) cache(version string) *Cache[factIndex, *factIndex] {
	c := e.openCache(version)
	c.Close()
	return c
}

func (e *persistEnv) openCache(version string) *Cache[factIndex, *factIndex] {
	return NewCache((*factIndex).add, func(sc Scan) {
		if sc.Full {
			e.fullScans++
		}
		e.bytesRead += sc.Bytes
	}, zap.NewNop(), "test").Persist(e.dir, version).Tune(e.tuning)
}

// TestSaveAfterTheRead: an index is saved apart from the request that built
// it, once that request is done reading (not while it still holds the
// index), and Close starts the save at once rather than after saveDelay,
// and waits for it: a restart after it does not scan.
func TestSaveAfterTheRead(t *testing.T) {
	t.Parallel()
	e := newPersistEnv(t)
	e.tuning.SaveDelay = time.Hour // the test's timeout, if Close waited for it
	c := e.openCache("v1")
	f, err := os.Open(e.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = c.Read(context.Background(), e.path, f, func(x *factIndex) error {
		if _, err := os.Stat(c.savedName(e.path)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("index saved while its first reader still reads (%v)", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(c.savedName(e.path)); err != nil {
		t.Fatalf("no index saved once Close returned: %v", err)
	}
	e.restart("v1", false)
}

// TestSaveAfterForget: a save still to run when its path is forgotten (the
// file is gone) does not bring the removed index back.
func TestSaveAfterForget(t *testing.T) {
	t.Parallel()
	e := newPersistEnv(t)
	e.tuning.SaveDelay = time.Hour // the save waits for Close
	c := e.openCache("v1")
	fi, err := os.Stat(e.path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(context.Background(), e.path, fi); err != nil {
		t.Fatal(err)
	}
	c.Forget(e.path)
	c.Close()
	if _, err := os.Stat(c.savedName(e.path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("index of a forgotten path saved after all (%v)", err)
	}
}

// read indexes the file with c and fails unless the index is exactly what
// a scan of the file as it is now gives.
func (e *persistEnv) read(c *Cache[factIndex, *factIndex]) {
	e.t.Helper()
	fi, err := os.Stat(e.path)
	if err != nil {
		e.t.Fatal(err)
	}
	x, err := c.Get(context.Background(), e.path, fi)
	if err != nil {
		e.t.Fatal(err)
	}
	f, err := os.Open(e.path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	want, _, err := Refresh[factIndex](context.Background(), nil, f, fi, (*factIndex).add, zap.NewNop(), "test")
	if err != nil {
		e.t.Fatal(err)
	}
	if !slices.Equal(x.Lines(), want.Lines()) || !slices.Equal(x.all, want.all) {
		e.t.Fatalf("index of %d lines, %d seen; a scan now: %d, %d", len(x.Lines()), len(x.all), len(want.Lines()), len(want.all))
	}
	if got := readLines(e.t, x, f); !slices.Equal(got, readLines(e.t, want, f)) {
		e.t.Fatalf("pages differ from a scan's: %q", got)
	}
}

func readLines(t *testing.T, x *factIndex, f *os.File) []string {
	var out []string
	if err := x.ReadPage(f, 0, 1000, true, 0, func(_ int64, b []byte) error {
		out = append(out, string(b))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// restart reads the file with a new Cache and checks whether it had to scan
// the whole file again.
func (e *persistEnv) restart(version string, wantFull bool) {
	e.t.Helper()
	e.fullScans = 0
	e.read(e.cache(version))
	if full := e.fullScans > 0; full != wantFull {
		e.t.Errorf("full scan after restart: %v, want %v", full, wantFull)
	}
}

// setTimes sets the file's modification time to t.
func (e *persistEnv) setTimes(t time.Time) {
	e.t.Helper()
	if err := os.Chtimes(e.path, t, t); err != nil {
		e.t.Fatal(err)
	}
}

// idxFile is the one persisted index file.
func (e *persistEnv) idxFile() string {
	e.t.Helper()
	m, _ := filepath.Glob(filepath.Join(e.dir, "*.idx"))
	if len(m) != 1 {
		e.t.Fatalf("persisted indexes %q, want one", m)
	}
	return m[0]
}

// TestPersistedIndex: a restart starts from the persisted index when it
// still describes the file (reading only what was appended since), and
// otherwise scans the file again; whatever is on disk, what is served is
// what a scan of the file now gives.
func TestPersistedIndex(t *testing.T) {
	t.Parallel()
	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, c := range []struct {
		name     string
		change   func(e *persistEnv)
		version  string
		wantFull bool
	}{
		{"unchanged", func(e *persistEnv) {}, "v1", false},
		{"grown since", func(e *persistEnv) { appendFile(e.t, e.path, e.lines(7)) }, "v1", false},
		{"torn line completed since", func(e *persistEnv) {}, "v1", false}, // see the torn setup below
		{"shorter", func(e *persistEnv) {
			if err := os.Truncate(e.path, 100); err != nil {
				e.t.Fatal(err)
			}
			appendFile(e.t, e.path, "\n")
		}, "v1", true},
		{"rewritten in place, same size and time", func(e *persistEnv) {
			b, _ := os.ReadFile(e.path)
			b[len(b)-3] = 'y' // inside the last line's pad
			writeFile(e.t, e.path, string(b))
			e.setTimes(mtime)
		}, "v1", true},
		{"rewritten earlier than the checksummed tail", func(e *persistEnv) {
			b, _ := os.ReadFile(e.path)
			copy(b, "#")
			writeFile(e.t, e.path, string(b))
			e.setTimes(mtime.Add(time.Second))
		}, "v1", true},
		{"replaced under the same name", func(e *persistEnv) {
			b, _ := os.ReadFile(e.path)
			copy(b, "#") // before the checksummed tail: only the inode tells
			tmp := e.path + ".new"
			writeFile(e.t, tmp, string(b))
			if err := os.Rename(tmp, e.path); err != nil {
				e.t.Fatal(err)
			}
			e.setTimes(mtime)
		}, "v1", true},
		{"persisted index corrupt", func(e *persistEnv) {
			p := e.idxFile()
			b, _ := os.ReadFile(p)
			b[len(b)-10] ^= 0x10 // in the facts
			writeFile(e.t, p, string(b))
		}, "v1", true},
		{"persisted index truncated", func(e *persistEnv) {
			p := e.idxFile()
			b, _ := os.ReadFile(p)
			writeFile(e.t, p, string(b[:len(b)/2]))
		}, "v1", true},
		{"persisted index empty (a crash before the write)", func(e *persistEnv) { writeFile(e.t, e.idxFile(), "") }, "v1", true},
		{"persisted index of another file", func(e *persistEnv) {
			other := newPersistEnv(e.t)
			other.read(other.cache("v1"))
			b, _ := os.ReadFile(other.idxFile())
			writeFile(e.t, e.idxFile(), string(b))
		}, "v1", true},
		{"persisted index of another path to the same file", func(e *persistEnv) {
			// A hard link: the same inode and bytes, but the index names
			// another path (a hash collision of names would look so).
			link := e.path + ".link"
			if err := os.Link(e.path, link); err != nil {
				e.t.Fatal(err)
			}
			c := e.cache("v1")
			fi, _ := os.Stat(link)
			if _, err := c.Get(context.Background(), link, fi); err != nil {
				e.t.Fatal(err)
			}
			b, _ := os.ReadFile(c.savedName(link))
			os.Remove(c.savedName(link))
			writeFile(e.t, c.savedName(e.path), string(b))
		}, "v1", true},
		{"persisted by another version", func(e *persistEnv) {}, "v2", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newPersistEnv(t)
			if strings.HasPrefix(c.name, "torn") {
				appendFile(t, e.path, `{"n":"torn`)
			}
			e.setTimes(mtime)
			e.read(e.cache("v1"))
			e.idxFile()
			if strings.HasPrefix(c.name, "torn") {
				appendFile(t, e.path, `"}`+"\n")
			}
			c.change(e)
			e.restart(c.version, c.wantFull)
			// And once more: what the restart saved (or kept) serves too.
			e.restart(c.version, false)
		})
	}
}

// TestPersistedIndexGrowth: a restart after growth reads only the appended
// bytes.
func TestPersistedIndexGrowth(t *testing.T) {
	t.Parallel()
	e := newPersistEnv(t)
	e.read(e.cache("v1"))
	fi, _ := os.Stat(e.path)
	more := e.lines(3)
	appendFile(t, e.path, more)
	e.bytesRead = 0
	e.restart("v1", false)
	if e.bytesRead != int64(len(more)) {
		t.Errorf("read %d bytes after a restart, want the %d appended to %d", e.bytesRead, len(more), fi.Size())
	}
}

// TestPersistBounds: the directory keeps at most MaxPersistFiles indexes,
// the most recently saved, and drops temporary files a crash left.
func TestPersistBounds(t *testing.T) {
	t.Parallel()
	e := newPersistEnv(t)
	e.tuning.MaxPersistFiles = 2
	if err := os.MkdirAll(e.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(e.dir, "tmp-crashed")
	writeFile(t, stale, "half")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	c := e.cache("v1")
	var paths []string
	for i := range 4 {
		p := filepath.Join(filepath.Dir(e.path), fmt.Sprintf("f%d.jsonl", i))
		writeFile(t, p, e.lines(5))
		ti := time.Now().Add(time.Duration(i-10) * time.Minute)
		fi, _ := os.Stat(p)
		if _, err := c.Get(context.Background(), p, fi); err != nil {
			t.Fatal(err)
		}
		// Order the saves by time, whatever the file system's resolution.
		if err := os.Chtimes(c.savedName(p), ti, ti); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	m, _ := filepath.Glob(filepath.Join(e.dir, "*"))
	want := []string{c.savedName(paths[2]), c.savedName(paths[3])}
	slices.Sort(want)
	if !slices.Equal(m, want) {
		t.Errorf("cache dir holds %q, want %q", m, want)
	}
}
