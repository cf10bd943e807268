package kit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// Streamed pieces take from one budget: what fits is kept whole, the rest
// is counted, and nothing more is kept once it is spent.
func TestBudgetKeepsWhatFits(t *testing.T) {
	b := NewBudget()
	half := strings.Repeat("a", MaxMessageText/2)
	if got := b.Take(half); got != half {
		t.Fatal("a piece within the budget was cut")
	}
	if got := b.Take(half + "é" + "rest"); len(got) != MaxMessageText/2 || b.Dropped() != len("é"+"rest") {
		t.Fatalf("kept %d bytes, dropped %d", len(got), b.Dropped())
	}
	if got := b.Take("more"); got != "" || b.Dropped() != len("érest")+4 {
		t.Fatalf("after the budget: kept %q, dropped %d", got, b.Dropped())
	}
}

// A closing message over the limit is cut with a note saying how much is
// missing; one within it is returned unchanged, its content not copied.
func TestCapMessage(t *testing.T) {
	big := strings.Repeat("x", MaxMessageText+1000)
	out, _ := json.Marshal(big)
	m := rpc.Message{ID: "m", Message: rpc.MessageBody{Content: []rpc.ContentBlock{
		{Type: rpc.BlockThinking, Thinking: "hmm"},
		{Type: rpc.BlockText, Text: big},
		{Type: rpc.BlockToolResult, Content: out},
	}}}
	c := CapMessage(m)
	text := c.Message.Content[1].Text
	want := strings.Repeat("x", MaxMessageText-3) + TruncationNote(1003)
	if text != want {
		t.Fatalf("text: %d bytes ending %q; want %d ending %q", len(text), text[len(text)-40:], len(want), want[len(want)-40:])
	}
	var result string
	if err := json.Unmarshal(c.Message.Content[2].Content, &result); err != nil || result != TruncationNote(len(big)) {
		t.Fatalf("tool result after the budget: %.60q, %v", result, err)
	}
	if m.Message.Content[1].Text != big {
		t.Fatal("CapMessage changed its argument's content")
	}
	small := rpc.Message{Message: rpc.MessageBody{Content: []rpc.ContentBlock{{Type: rpc.BlockText, Text: "hi"}}}}
	if got := CapMessage(small); &got.Message.Content[0] != &small.Message.Content[0] {
		t.Fatal("a message within the limit was copied")
	}
}

// WaitRoom holds the reader of a CLI's output while the sink is behind by
// more than the bound, and lets it go as the sink catches up, or at once
// after Release.
func TestEmitterWaitRoom(t *testing.T) {
	gate := make(chan struct{})
	em := NewEmitter(func(runtimes.Event) { <-gate }, nil)
	em.maxBytes = 1000
	em.Run()
	em.WaitRoom() // empty: no wait
	for range 3 {
		em.Emit(runtimes.MessageDelta{Text: strings.Repeat("x", 500)})
	}
	waited := make(chan struct{})
	go func() { em.WaitRoom(); close(waited) }()
	select {
	case <-waited:
		t.Fatal("WaitRoom returned with the sink 1,500 bytes behind")
	case <-time.After(50 * time.Millisecond): // a wait that should not end: bounded, and its end fails the test
	}
	close(gate) // the sink catches up
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("WaitRoom still waits once the sink caught up")
	}
	if bytes, peak := em.Queued(); bytes != 0 || peak < 1500 {
		t.Fatalf("queued %d, peak %d", bytes, peak)
	}
	em.Emit(runtimes.ProcessExited{})
	<-em.Done()
}

// Release ends a wait at once: a stopping process's reader must drain.
func TestEmitterReleaseEndsWaitRoom(t *testing.T) {
	gate := make(chan struct{})
	em := NewEmitter(func(runtimes.Event) { <-gate }, nil)
	em.maxBytes = 100
	em.Run()
	em.Emit(runtimes.MessageDelta{Text: strings.Repeat("x", 500)}, runtimes.MessageDelta{Text: "y"})
	waited := make(chan struct{})
	go func() { em.WaitRoom(); close(waited) }()
	em.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case <-waited:
	case <-ctx.Done():
		t.Fatal("WaitRoom still waits after Release")
	}
	close(gate)
	em.Emit(runtimes.ProcessExited{})
	<-em.Done()
}
