// Package history is the one store of the agent CLIs' stored sessions: it
// implements runtimes.Transcripts once (listing with change counts and a
// summary cache, paging, tail, watch, trash, persisted indexes) over the
// files a runtime's Format describes. A runtime with history supplies only
// its Format: where its files are, how a line is taken into an index, how
// an index reads as a summary, and how a line reads as a message.
//
// Indexes are lineindex.Cache entries (runtimes/history/lineindex): the places of a file's
// message lines and what its format gathers besides, extended from the old
// end when the file grows, and, with a cache directory, persisted so that a
// restarted daemon does not scan a big file again.
package history

import (
	"os"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// Index is a format's index type: a pointer to its struct, which embeds
// lineindex.Index (the places of the kept lines) next to what the format
// gathers from the lines. The methods besides *T come from the embedding.
type Index[T any] interface {
	lineindex.Indexed[T]
	Info() os.FileInfo
	Lines() []lineindex.Span
	ReadPage(f *os.File, offset, limit int, desc bool, budget int64, fn func(off int64, line []byte) error) error
}

// Format is what a runtime supplies for its stored sessions to be read. T is
// its index type (a struct embedding lineindex.Index), P a pointer to it.
//
// Where the files are is the layout's business: a Layout (NewFolders) for
// one file per session in a folder per working directory (Claude Code's),
// a DateTree (NewTree) for files filed by day that record their directory
// (Codex's). Every func must be set (Tailed may be nil), but for a format
// whose sessions are not pages of lines: Gemini's chat files are patch logs replayed into
// records, which its own store pages and follows, using a Tree for the
// indexes, the listing, Has, Trash and Watch (with DateTree.Group, whose
// sessions are summarized by Group); its format leaves Describe, Message,
// Counted and Tailed nil.
type Format[T any, P Index[T]] struct {
	// What names a file in logs and errors ("transcript").
	What string
	// Version names what Add gathers, for persisted indexes: change it
	// whenever Add or the facts the index saves change, so that indexes an
	// older cdevd saved are scanned again rather than trusted.
	Version string

	// Add takes one complete line into x, reporting whether it is a
	// message (its place is then kept, and counted).
	Add func(x P, line []byte) bool
	// Describe is what List says of a session besides its id, count and
	// time: its title, and the git branch it ran on ("" when unknown).
	Describe func(x P) (title, branch string)
	// Message reads a line Add kept as the message a page shows; ok is
	// false when it cannot.
	Message func(sessionID string, off int64, line []byte) (m rpc.Message, ok bool)
	// Counted reports whether Add keeps line even though Message cannot
	// read it: a message line damaged inside (the CLI never writes one),
	// which a page leaves out. Any other line Message refuses means the
	// index no longer describes the file (see Tree.Messages).
	Counted func(line []byte) bool
	// Tailed, when set, reads a line appended to a followed file where it
	// reads otherwise than Message: ok is false for a line that is not a
	// message, err says why one could not be read (logged, not returned).
	// nil: Message, a message line it cannot read (Counted) logged.
	Tailed func(sessionID string, off int64, line []byte) (m rpc.Message, ok bool, err error)
}

// TimeFormat is RFC 3339 with milliseconds, as the CLIs write timestamps.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Timestamp is ts when it is RFC 3339, else the time now returns (as
// TimeFormat): a message's time for a line that has none, or a bad one.
func Timestamp(ts string, now func() time.Time) string {
	if _, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return ts
	}
	return now().UTC().Format(TimeFormat)
}

// Shorten cuts s to at most n runes on one line, marking a cut with '…':
// a session's title as a listing shows it.
func Shorten(s string, n int) string {
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
