package rollout

import (
	"path/filepath"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// index is what one scan of a rollout learned: where its message lines are
// (the kept Lines) and what List reports.
type index struct {
	jsonl.Index

	id, cwd, canonCwd, prompt string
}

// add takes one line into the index, reporting whether it is a message; a
// line that is not JSON is skipped.
func (x *index) add(b []byte) bool {
	l, err := ParseLine(b)
	if err != nil {
		return false
	}
	if l.Type == "session_meta" && x.cwd == "" && l.Payload.Cwd != "" {
		x.id, x.cwd, x.canonCwd = l.Payload.ID, l.Payload.Cwd, canonical(l.Payload.Cwd)
	}
	if x.prompt == "" {
		x.prompt = prompt(l)
	}
	return isMessage(l)
}

// canonical is path with symlinks resolved where it exists, else cleaned:
// a workspace opened through a symlink is the same folder.
func canonical(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// shorten cuts s to at most n runes on one line, marking a cut with '…'.
func shorten(s string, n int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\r' || c == '\t' {
			r[i] = ' '
		}
	}
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// count adds what a refresh of the cache read to the counters.
func (s *Store) count(sc jsonl.Scan) {
	if sc.Full {
		s.fullScans.Add(1)
	}
	s.scannedBytes.Add(sc.Bytes)
}
