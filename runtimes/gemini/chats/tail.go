package chats

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"sync"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// Tail follows session id's chat file from its current end, calling emit
// (one call at a time, in file order) with every message record written
// after that, until ctx ends or the returned Closer is closed. The file
// followed is the session's newest with a user message, else its newest.
// Records are upserts: one written again with a changed content is emitted
// again, with the same id (clients replace the message they have); one
// written again unchanged is not, nor one a $set of the list rewrites.
func (s *Store) Tail(ctx context.Context, dir, id string, emit func(rpc.Message)) (io.Closer, error) {
	ss, err := s.session(ctx, dir, id, false)
	if err != nil {
		return nil, err
	}
	f := ss.files[len(ss.files)-1]
	if len(ss.real) > 0 {
		f = ss.real[len(ss.real)-1]
	}
	t := &tailer{id: id, emit: emit, seen: map[string]uint32{}, calls: map[string]bool{}, known: map[string]int{}, ts: f.header.StartTime}
	// Follow first, then take what the file holds as already seen: a line
	// written between the two is then emitted (at worst twice), not lost.
	c, err := jsonl.Follow(ctx, s.watcher, f.path, "chat file", func(_ int64, b []byte) { t.line(b) }, s.log.With(zap.String("session_id", id)))
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(f.path); err == nil {
		if x, err := s.Index(ctx, f.path, fi); err == nil {
			t.seed(x.view(f.path))
		}
	}
	return c, nil
}

// tailer turns the lines of a followed chat file into messages.
type tailer struct {
	id   string
	emit func(rpc.Message)
	ts   string

	mu     sync.Mutex
	seen   map[string]uint32 // checksum of the last version emitted or found, by record id
	calls  map[string]bool   // besides the followed file's when seeded (seeded.called)
	seeded *view
	known  map[string]int // messages found or emitted, by what they say (a resume rewrites them under new ids)
}

func (t *tailer) seed(v *view) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seeded = v
	f, err := jsonl.OpenRegular(v.path)
	if err == nil {
		defer f.Close()
	}
	for _, e := range v.all() {
		if _, ok := t.seen[e.id]; !ok {
			t.seen[e.id] = e.sum
		}
		if raw, err := e.read(f); err == nil { // a nil f reads nothing (os.ErrInvalid)
			if m, ok := ToMessage(t.id, raw, v.called, t.ts); ok {
				t.known[said(m)]++
			}
		}
	}
}

// said is what a message says, without its ids and time.
func said(m rpc.Message) string {
	b, _ := json.Marshal(m.Message.Content)
	return string(m.Type) + " " + string(b)
}

func (t *tailer) line(b []byte) {
	l, err := parseLine(b) // Raw is used during this call only
	if err != nil {
		return
	}
	switch l.Kind {
	case KindRecord:
		t.record(l.Record, nil)
	case KindSet:
		// Resuming a conversation (gemini --resume, ACP session/load),
		// Gemini writes it again as a $set of the whole list, each message
		// under a new id: those are not new. Only messages beyond the ones
		// known, by what they say, are.
		t.mu.Lock()
		left := maps.Clone(t.known)
		t.mu.Unlock()
		for _, r := range l.SetMsgs {
			t.record(r, left)
		}
	}
}

// record emits r unless it was emitted or found before, under its id or,
// for a record of a $set, as one of the messages left to rewrite.
func (t *tailer) record(r Record, left map[string]int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sum := checksum(r.Raw)
	if old, ok := t.seen[r.ID]; ok && old == sum {
		return
	}
	t.seen[r.ID] = sum
	in := r.info
	for _, c := range in.calls {
		t.calls[c] = true
	}
	called := func(id string) bool { return t.calls[id] || (t.seeded != nil && t.seeded.called(id)) }
	if !in.isMessage(called) {
		return
	}
	if m, ok := ToMessage(t.id, r.Raw, called, t.ts); ok {
		key := said(m)
		if left[key] > 0 {
			left[key]--
			return
		}
		t.known[key]++
		t.emit(m)
	}
}
