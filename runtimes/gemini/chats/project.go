package chats

import (
	"bytes"
	"io"
	"os"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// head is what the Store remembers of a chat file's first line: the
// project the file belongs to, for as long as that line is unchanged. A
// List of one workspace then neither replays nor even opens the files of
// the others: a 100 MB chat file of another project was replayed by every
// cold List before.
type head struct {
	dev, ino uint64    // the file's identity: a file replaced under its name is another
	size     int64     // the version last checked
	mtime    time.Time //
	line     []byte    // the first line, its newline included
	project  string    // its projectHash
}

// maxHead bounds the first line read: Gemini's header is about 200 bytes;
// a file whose first line is longer is replayed instead.
const maxHead = 16 << 10

// project returns the projectHash of the chat file at p, whose version fi
// is, reading at most its first line; ok is false when the first line does
// not say it (it is not a complete header with a projectHash): the caller
// then replays the file, as the project can come from a later line. The
// answer is remembered by the file's identity: a file appended to keeps
// its project once its first line is read again and found unchanged
// (Gemini rewrites a file in place when a session is loaded in the
// minute it began); a file replaced under the same name is read anew.
func (s *Store) project(p string, fi os.FileInfo) (project string, ok bool) {
	dev, ino, idOK := jsonl.FileKey(fi)
	if !idOK {
		return "", false // without an identity, a replaced file could not be told
	}
	s.mu.Lock()
	h, known := s.heads[p]
	s.mu.Unlock()
	if known && h.dev == dev && h.ino == ino {
		if h.size == fi.Size() && h.mtime.Equal(fi.ModTime()) {
			return h.project, true
		}
		if fi.Size() >= int64(len(h.line)) && firstBytesAre(p, h.line) {
			// A new head, not h changed: another List may be reading h.
			nh := *h
			nh.size, nh.mtime = fi.Size(), fi.ModTime()
			s.remember(p, &nh)
			return h.project, true
		}
	}
	s.headReads.Add(1)
	line, err := firstLine(p)
	if err != nil {
		s.forgetHead(p)
		return "", false
	}
	l, err := lineOf(line)
	if err != nil || l.Kind != KindHeader || l.Header.ProjectHash == "" {
		s.forgetHead(p)
		return "", false
	}
	s.remember(p, &head{dev: dev, ino: ino, size: fi.Size(), mtime: fi.ModTime(), line: line, project: l.Header.ProjectHash})
	return l.Header.ProjectHash, true
}

func (s *Store) remember(p string, h *head) {
	s.mu.Lock()
	s.heads[p] = h
	s.mu.Unlock()
}

func (s *Store) forgetHead(p string) {
	s.mu.Lock()
	delete(s.heads, p)
	s.mu.Unlock()
}

// firstLine reads the first line of the file at p, its newline included;
// an error when there is no complete one within maxHead bytes.
func firstLine(p string) ([]byte, error) {
	f, err := jsonl.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 512)
	n := 0
	for {
		m, err := f.ReadAt(buf[n:], int64(n))
		if i := bytes.IndexByte(buf[n:n+m], '\n'); i >= 0 {
			return bytes.Clone(buf[:n+i+1]), nil
		}
		n += m
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF // no complete line yet
			}
			return nil, err
		}
		if n == len(buf) {
			if n >= maxHead {
				return nil, io.ErrShortBuffer
			}
			buf = append(buf, make([]byte, n)...)
		}
	}
}

// firstBytesAre reports whether the file at p begins with b.
func firstBytesAre(p string, b []byte) bool {
	f, err := jsonl.OpenRegular(p)
	if err != nil {
		return false
	}
	defer f.Close()
	got := make([]byte, len(b))
	_, err = f.ReadAt(got, 0)
	return err == nil && bytes.Equal(got, b)
}
