package sessions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// fileTranscripts is a transcript held in memory, oldest first.
type fileTranscripts struct {
	msgs  []rpc.Message
	reads int
	grow  func() // called before each read, to model a CLI writing meanwhile
	// most, when set, cuts every read short to at most most messages, as
	// the byte bound on a page does.
	most int
}

func (f *fileTranscripts) Messages(_ context.Context, _, _ string, offset, limit int, desc bool) ([]rpc.Message, int, error) {
	f.reads++
	if f.grow != nil {
		f.grow()
	}
	if len(f.msgs) == 0 {
		return nil, 0, runtimes.ErrNoSession
	}
	all := slices.Clone(f.msgs)
	if desc {
		slices.Reverse(all)
	}
	end := min(offset+limit, len(all))
	if f.most > 0 {
		end = min(end, offset+f.most)
	}
	if offset >= end {
		return nil, len(all), nil
	}
	return all[offset:end], len(all), nil
}

func (f *fileTranscripts) List(context.Context, string) ([]runtimes.Summary, error) { return nil, nil }
func (f *fileTranscripts) Tail(context.Context, string, string, func(rpc.Message)) (io.Closer, error) {
	return nil, nil
}
func (f *fileTranscripts) Has(context.Context, string, string) bool { return true }
func (f *fileTranscripts) Trash(context.Context, string, string, runtimes.Bin) error {
	return errors.ErrUnsupported
}
func (f *fileTranscripts) Watch(string, func(string)) (io.Closer, error) {
	return nil, errors.ErrUnsupported
}

func msgs(prefix string, n int) []rpc.Message {
	out := make([]rpc.Message, n)
	for i := range out {
		out[i] = rpc.Message{ID: fmt.Sprintf("%s%d", prefix, i), Type: rpc.MessageAssistant}
	}
	return out
}

func ids(ms []rpc.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// TestLiveMessagesPagesTheMergedView checks every page of every split
// between what a transcript holds and what was only streamed: the merged
// view is the stored messages, then the unstored ones, each once.
func TestLiveMessagesPagesTheMergedView(t *testing.T) {
	ctx := context.Background()
	for old := 0; old <= 6; old++ { // stored before this process: never emitted here
		for emitted := 0; emitted <= 5; emitted++ {
			for stored := 0; stored <= emitted; stored++ {
				em := msgs("e", emitted)
				want := append(msgs("o", old), em...)
				for offset := 0; offset <= len(want)+1; offset++ {
					for limit := 1; limit <= len(want)+1; limit++ {
						for _, desc := range []bool{false, true} {
							f := &fileTranscripts{msgs: append(msgs("o", old), em[:stored]...)}
							s := &session{id: "s", unsettled: slices.Clone(em)}
							got, total, err := s.liveMessages(ctx, f, "", offset, limit, desc)
							if err != nil {
								t.Fatal(err)
							}
							w := slices.Clone(want)
							if desc {
								slices.Reverse(w)
							}
							w = w[min(offset, len(w)):min(offset+limit, len(w))]
							if total != len(want) || !slices.Equal(ids(got), ids(w)) {
								t.Fatalf("old %d emitted %d stored %d offset %d limit %d desc %v: %v of %d, want %v of %d",
									old, emitted, stored, offset, limit, desc, ids(got), total, ids(w), len(want))
							}
							if len(s.unsettled) != emitted-stored {
								t.Fatalf("%d stored of %d emitted: %d still unsettled", stored, emitted, len(s.unsettled))
							}
						}
					}
				}
			}
		}
	}
}

// TestLiveMessagesShortStoredPages walks the merged view page by page, each
// next offset from the last page's length, while every stored read comes
// back short (a page bounded by bytes): each message comes once, in order,
// whichever the order asked.
func TestLiveMessagesShortStoredPages(t *testing.T) {
	ctx := context.Background()
	for old := 0; old <= 6; old++ {
		for emitted := 0; emitted <= 4; emitted++ {
			for stored := 0; stored <= emitted; stored++ {
				for _, desc := range []bool{false, true} {
					em := msgs("e", emitted)
					want := append(msgs("o", old), em...)
					if desc {
						slices.Reverse(want)
					}
					f := &fileTranscripts{msgs: append(msgs("o", old), em[:stored]...), most: 2}
					s := &session{id: "s", unsettled: slices.Clone(em)}
					var got []rpc.Message
					for offset := 0; offset < len(want); {
						page, _, err := s.liveMessages(ctx, f, "", offset, 5, desc)
						if err != nil {
							t.Fatal(err)
						}
						if len(page) == 0 {
							t.Fatalf("old %d emitted %d stored %d desc %v: empty page at offset %d", old, emitted, stored, desc, offset)
						}
						got = append(got, page...)
						offset += len(page)
					}
					if !slices.Equal(ids(got), ids(want)) {
						t.Fatalf("old %d emitted %d stored %d desc %v: walked %v, want %v",
							old, emitted, stored, desc, ids(got), ids(want))
					}
				}
			}
		}
	}
}

func TestLiveMessagesWhileTheTranscriptGrows(t *testing.T) {
	// The CLI writes between the read that settles and the read of a page
	// beyond the window: the page is read again, and the answer has every
	// message once.
	em := msgs("e", 3)
	f := &fileTranscripts{msgs: msgs("o", 2*MaxLimit)}
	s := &session{id: "s", unsettled: slices.Clone(em)}
	written := 0
	f.grow = func() {
		if written < len(em) {
			f.msgs = append(f.msgs, em[written])
			written++
		}
	}
	got, total, err := s.liveMessages(context.Background(), f, "", 0, 2*MaxLimit+3, false)
	if err != nil {
		t.Fatal(err)
	}
	want := ids(append(msgs("o", 2*MaxLimit), em...))
	if total != len(want) || !slices.Equal(ids(got), want) {
		t.Fatalf("got %d of %d (last %v), want %d", len(got), total, ids(got)[max(len(got)-4, 0):], len(want))
	}
	if f.reads < 3 {
		t.Errorf("%d reads: the growth was not noticed", f.reads)
	}
}

func TestUnsettledPromptOfANonEchoingRuntimeSettlesWithItsAnswer(t *testing.T) {
	// The engine made the prompt up (another id than the stored copy): it
	// counts as stored once the answer after it is.
	prompt := rpc.Message{ID: "made-up", Type: rpc.MessageUser,
		Message: rpc.MessageBody{Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: "hi"}}}}
	answer := rpc.Message{ID: "a", Type: rpc.MessageAssistant}
	stored := prompt
	stored.ID = "p"
	f := &fileTranscripts{}
	s := &session{id: "s", unsettled: []rpc.Message{prompt, answer}}
	h := rpc.HistorySession{}
	if err := s.liveSummary(context.Background(), f, "", &h); err != nil {
		t.Fatal(err)
	}
	if h.MessageCount != 2 || h.Summary != "hi" {
		t.Errorf("before anything is stored: %+v, want 2 messages, summary hi", h)
	}
	f.msgs = []rpc.Message{stored, answer}
	got, total, err := s.liveMessages(context.Background(), f, "", 0, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	if total != 2 || !slices.Equal(ids(got), []string{"p", "a"}) || s.unsettled != nil {
		t.Errorf("once stored: %v of %d, %d unsettled; want [p a] of 2, none", ids(got), total, len(s.unsettled))
	}
}

func TestUnsettledIsBounded(t *testing.T) {
	s := &session{id: "s"}
	for _, m := range msgs("e", maxUnsettled+5) {
		s.rememberLocked(m)
	}
	if len(s.unsettled) != maxUnsettled || s.unsettled[0].ID != "e5" {
		t.Errorf("%d unsettled from %s, want %d from e5", len(s.unsettled), s.unsettled[0].ID, maxUnsettled)
	}
}

// History reads the stored summary (List) before the live view: when the
// transcript grew in between and a concurrent read already settled what it
// holds, the entry still counts and summarizes what is stored now (seen
// under load: a history call right after turn_completed listed 0 messages).
func TestLiveSummaryNewerThanList(t *testing.T) {
	prompt := rpc.Message{ID: "p", Type: rpc.MessageUser,
		Message: rpc.MessageBody{Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: "question"}}}}
	answer := rpc.Message{ID: "a", Type: rpc.MessageAssistant}
	f := &fileTranscripts{msgs: []rpc.Message{prompt, answer}}
	s := &session{id: "s"} // nothing unsettled: settled by another read
	h := rpc.HistorySession{MessageCount: 0, Summary: ""}
	if err := s.liveSummary(context.Background(), f, "", &h); err != nil {
		t.Fatal(err)
	}
	if h.MessageCount != 2 || h.Summary != "question" {
		t.Errorf("entry %+v, want the 2 stored messages and the prompt as summary", h)
	}
}
