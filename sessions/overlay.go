package sessions

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Read-your-writes. A CLI may write its transcript after it has printed the
// messages and the end of the turn (Claude writes the turn's lines 40-85 ms
// after its result line; on a first turn the file does not exist yet), but a
// client that received a message, or turn_completed, must find it in
// messages and history at once. So each session remembers the messages it
// emitted until its transcript is seen to hold them ("settled"), and reads
// of a running session's transcript add the unsettled ones after the
// file's, with the same ids, so nothing is missing and nothing is doubled.
//
// A transcript is appended in order, so once it holds an emitted message it
// holds every message emitted before it too: settling drops a prefix. That
// also settles prompts the engine made up for runtimes that do not echo
// them (their stored copy has another id) as soon as a later message is
// stored.

// maxUnsettled bounds the messages a session remembers for a transcript
// that does not keep up (or is never written): the oldest go first.
const maxUnsettled = 1000

// settleSlack widens the window of newest stored messages in which
// unsettled ones are looked for, for stored messages that were never
// emitted (lines the runtime writes for itself).
const settleSlack = 32

// settleRetries bounds the re-reads when the transcript grows between the
// two reads of one page.
const settleRetries = 3

// rememberLocked keeps an emitted message until it is settled.
func (s *session) rememberLocked(m rpc.Message) {
	if s.external {
		return // its messages come from the transcript itself
	}
	if len(s.unsettled) == maxUnsettled {
		n := copy(s.unsettled, s.unsettled[1:])
		s.unsettled[n] = rpc.Message{}
		s.unsettled = s.unsettled[:n]
	}
	s.unsettled = append(s.unsettled, m)
}

func (s *session) hasUnsettled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.unsettled) > 0
}

func (s *session) unsettledCopy() []rpc.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]rpc.Message(nil), s.unsettled...)
}

// settleThrough forgets the unsettled messages up to and including the one
// with id: the transcript holds them.
func (s *session) settleThrough(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range s.unsettled {
		if m.ID == id {
			n := copy(s.unsettled, s.unsettled[i+1:])
			clear(s.unsettled[n:]) // the array must not keep settled messages alive
			s.unsettled = s.unsettled[:n]
			if n == 0 {
				s.unsettled = nil // nor itself, while nothing is pending
			}
			return
		}
	}
}

// storedView is a running session's transcript as its clients have seen it:
// the stored messages, then those emitted but not stored yet.
type storedView struct {
	total   int           // stored messages
	recent  []rpc.Message // the newest stored ones, newest first
	pending []rpc.Message // emitted, not stored yet, oldest first
}

// view reads the newest stored messages of s and works out which of its
// unsettled messages they do not hold yet. want is how many of the newest
// stored messages the caller would like in recent as well.
func (s *session) view(ctx context.Context, t runtimes.Transcripts, dir string, want int) (storedView, error) {
	u := s.unsettledCopy()
	window := min(max(len(u)+settleSlack, want), MaxLimit)
	recent, total, err := t.Messages(ctx, dir, s.id, 0, window, true)
	if errors.Is(err, runtimes.ErrNoSession) || errors.Is(err, os.ErrNotExist) {
		recent, total, err = nil, 0, nil // nothing written yet
	}
	if err != nil {
		return storedView{}, err
	}
	stored := make(map[string]bool, len(recent))
	for _, m := range recent {
		stored[m.ID] = true
	}
	last := -1
	for i, m := range u {
		if stored[m.ID] {
			last = i
		}
	}
	if last >= 0 {
		s.settleThrough(u[last].ID)
	}
	return storedView{total: total, recent: recent, pending: u[last+1:]}, nil
}

// page is messages offset..offset+limit of the merged view, in the order
// asked, and the merged total. fetch reads stored messages (as
// Transcripts.Messages does) when the page reaches past v.recent; ok is
// false when the transcript changed in between, and the caller reads again.
// A stored read may come back short (pages are bounded by bytes too): the
// page then ends with it, so that it stays contiguous from offset and the
// client's next offset misses nothing.
func (v storedView) page(offset, limit int, desc bool,
	fetch func(offset, limit int, desc bool) ([]rpc.Message, int, error)) (msgs []rpc.Message, total int, ok bool, err error) {
	p := len(v.pending)
	total = v.total + p
	if offset >= total {
		return nil, total, true, nil
	}
	end := min(offset+limit, total)
	if !desc {
		return v.ascending(offset, end, fetch)
	}
	// Newest first: pending (newest first), then stored (newest first).
	out := make([]rpc.Message, 0, end-offset)
	for i := offset; i < min(end, p); i++ {
		out = append(out, v.pending[p-1-i])
	}
	if end > p {
		lo, hi := max(offset-p, 0), end-p // newest-first positions among stored
		if hi <= len(v.recent) {
			return append(out, v.recent[lo:hi]...), total, true, nil
		}
		got, n, err := fetch(lo, hi-lo, true)
		if err != nil {
			return nil, 0, false, err
		}
		if n != v.total {
			return nil, 0, false, nil
		}
		out = append(out, got...)
	}
	return out, total, true, nil
}

// ascending is page's oldest-first order: stored (oldest first), then
// pending.
func (v storedView) ascending(offset, end int,
	fetch func(offset, limit int, desc bool) ([]rpc.Message, int, error)) (msgs []rpc.Message, total int, ok bool, err error) {
	total = v.total + len(v.pending)
	out := make([]rpc.Message, 0, end-offset)
	if offset < v.total {
		n := min(end, v.total) - offset
		lo, hi := v.total-offset-n, v.total-offset // newest-first positions among stored
		if hi <= len(v.recent) {
			for i := hi - 1; i >= lo; i-- {
				out = append(out, v.recent[i])
			}
		} else {
			got, stored, err := fetch(offset, n, false)
			if err != nil {
				return nil, 0, false, err
			}
			if stored != v.total {
				return nil, 0, false, nil
			}
			if len(got) < n {
				return got, total, true, nil
			}
			out = append(out, got...)
		}
	}
	for i := max(offset-v.total, 0); i < end-v.total; i++ {
		out = append(out, v.pending[i])
	}
	return out, total, true, nil
}

// liveMessages pages the transcript of s, a session cdevd runs, merged with
// what s emitted and its transcript does not hold yet.
func (s *session) liveMessages(ctx context.Context, t runtimes.Transcripts, dir string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	fetch := func(o, l int, d bool) ([]rpc.Message, int, error) {
		msgs, total, err := t.Messages(ctx, dir, s.id, o, l, d)
		if errors.Is(err, runtimes.ErrNoSession) || errors.Is(err, os.ErrNotExist) {
			return nil, 0, nil // running, nothing written yet
		}
		return msgs, total, err
	}
	if !s.hasUnsettled() {
		// The usual case once the transcript caught up: one plain read.
		// A message emitted after this check was not received before the
		// request, so the guarantee does not cover it.
		return fetch(offset, limit, desc)
	}
	want := offset + limit
	for try := 0; ; try++ {
		v, err := s.view(ctx, t, dir, want)
		if err != nil {
			return nil, 0, err
		}
		msgs, total, ok, err := v.page(offset, limit, desc, fetch)
		if err != nil || ok {
			return msgs, total, err
		}
		if try == settleRetries {
			// Still growing fast: serve the stored page alone, which
			// holds at least as much as the view did.
			return fetch(offset, limit, desc)
		}
	}
}

// liveSummary completes a history entry of s with what its transcript does
// not hold yet. The entry's stored part was read before (List), so the
// transcript may have grown since, and a concurrent read may have settled
// what grew: the count and summary are taken from the newer read too.
func (s *session) liveSummary(ctx context.Context, t runtimes.Transcripts, dir string, h *rpc.HistorySession) error {
	v, err := s.view(ctx, t, dir, 0)
	if err != nil {
		return err
	}
	if n := v.total + len(v.pending); n > h.MessageCount {
		h.MessageCount = n
	}
	if h.Summary == "" {
		// Oldest first: the stored ones read (newest first), then the pending.
		msgs := slices.Clone(v.recent)
		slices.Reverse(msgs)
		for _, m := range append(msgs, v.pending...) {
			if text := promptText(m); text != "" {
				h.Summary = shorten(text, summaryRunes)
				break
			}
		}
	}
	if len(v.pending) == 0 {
		return nil
	}
	last, err := time.Parse(time.RFC3339Nano, v.pending[len(v.pending)-1].Timestamp)
	if err == nil {
		if known, err := time.Parse(time.RFC3339Nano, h.LastUpdated); err != nil || last.After(known) {
			h.LastUpdated = last.UTC().Format(historyTime)
		}
	}
	return nil
}

// historyTime formats last_updated: RFC 3339 with milliseconds, so that
// entries sort as text.
const historyTime = "2006-01-02T15:04:05.000Z07:00"

// summaryRunes is how long a summary made from a prompt may be.
const summaryRunes = 100

func promptText(m rpc.Message) string {
	if m.Type != rpc.MessageUser {
		return ""
	}
	for _, b := range m.Message.Content {
		if b.Type == rpc.BlockToolResult {
			return ""
		}
		if b.Type == rpc.BlockText && strings.TrimSpace(b.Text) != "" {
			return strings.TrimSpace(b.Text)
		}
	}
	return ""
}

// shorten cuts text to at most n runes on one line, marking a cut with '…'.
func shorten(text string, n int) string {
	r := []rune(strings.Join(strings.Fields(text), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
