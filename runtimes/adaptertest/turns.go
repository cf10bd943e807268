package adaptertest

// The Turns check: a text turn's events, its echo and its transcript as
// stored, with the helpers that read them.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func (c *suite) turns(t *testing.T) {
	e := c.env(t)
	info := e.Adapter.Info()
	tr := e.Adapter.Transcripts()
	var w *watch
	if tr != nil {
		w = startWatch(t, tr, e.Dir)
	}
	s := c.start(t, e, runtimes.StartRequest{})
	id := s.ID()
	ctx := c.ctx(t)

	// Idle: an interrupt does nothing, no prompt is pending.
	if err := s.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt when idle: %v", err)
	}
	if err := s.Respond(ctx, "no-such-request", runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrNoRequest) {
		t.Errorf("Respond to an unknown id: %v, want ErrNoRequest", err)
	}
	turn1 := s.turn(t, c.h.Text)
	if err := s.Interrupt(ctx); err != nil {
		t.Errorf("Interrupt when idle after a turn: %v", err)
	}
	turn2 := s.turn(t, c.h.Text)
	for i, evs := range [][]runtimes.Event{turn1, turn2} {
		if _, ok := evs[len(evs)-1].(runtimes.TurnCompleted); !ok {
			t.Errorf("text turn %d ended with %s", i+1, describe(evs[len(evs)-1]))
		}
		checkEcho(t, info, c.h.Text, evs)
	}
	live := messages(s.rec.all())

	t.Run("AfterExit", func(t *testing.T) {
		s.closeIdle(t)
		if err := s.Send(ctx, runtimes.Turn{Prompt: c.h.Text}); !errors.Is(err, runtimes.ErrExited) {
			t.Errorf("Send after exit: %v, want ErrExited", err)
		}
		if err := s.Respond(ctx, "no-such-request", runtimes.Answer{Decision: runtimes.Allow}); !errors.Is(err, runtimes.ErrExited) {
			t.Errorf("Respond after exit: %v, want ErrExited", err)
		}
		s.close(t) // again
	})
	if tr == nil {
		t.Log("the adapter keeps no transcripts: nothing more to check")
		return
	}

	t.Run("Watch", func(t *testing.T) { w.await(t, id, c.h.Timeout) })
	t.Run("Messages", func(t *testing.T) { awaitStored(t, tr, w, e.Dir, id, live, info, c.h.Timeout) })
	t.Run("List", func(t *testing.T) {
		list, err := tr.List(ctx, e.Dir)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if !slices.ContainsFunc(list, func(s runtimes.Summary) bool { return s.SessionID == id }) {
			t.Errorf("List does not have session %s: %+v", id, list)
		}
		if !tr.Has(ctx, e.Dir, id) {
			t.Errorf("Has(%s) is false", id)
		}
		if tr.Has(ctx, e.Dir, uuid.NewString()) {
			t.Error("Has is true for an id never stored")
		}
	})
	if info.Features.Resume {
		t.Run("Resume", func(t *testing.T) {
			r := c.start(t, e, runtimes.StartRequest{SessionID: id, Resume: true})
			if r.ID() != id {
				t.Fatalf("resumed %s as %s", id, r.ID())
			}
			evs := r.turn(t, c.h.Text)
			checkEcho(t, info, c.h.Text, evs)
			r.closeIdle(t)
			live = append(live, messages(evs)...)
			awaitStored(t, tr, w, e.Dir, id, live, info, c.h.Timeout)
		})
	}
	t.Run("Trash", func(t *testing.T) {
		bin := newBin(t)
		if err := tr.Trash(ctx, e.Dir, id, bin); err != nil {
			t.Fatalf("Trash: %v", err)
		}
		if len(bin.files()) == 0 {
			t.Error("Trash put nothing in the bin")
		}
		if tr.Has(ctx, e.Dir, id) {
			t.Error("Has is still true after Trash")
		}
		if list, err := tr.List(ctx, e.Dir); err != nil || slices.ContainsFunc(list, func(s runtimes.Summary) bool { return s.SessionID == id }) {
			t.Errorf("List after Trash: %+v, %v", list, err)
		}
		if err := tr.Trash(ctx, e.Dir, id, bin); !errors.Is(err, runtimes.ErrNoSession) {
			t.Errorf("Trash of a trashed session: %v, want ErrNoSession", err)
		}
	})
}

// checkEcho checks the prompt's echo in a turn's events: exactly one user
// message with the prompt's text when the adapter echoes, none otherwise.
func checkEcho(t *testing.T, info runtimes.Info, prompt string, evs []runtimes.Event) {
	t.Helper()
	var users, answers []rpc.Message
	for _, m := range messages(evs) {
		switch m.Type {
		case rpc.MessageUser:
			users = append(users, m)
		case rpc.MessageAssistant:
			answers = append(answers, m)
		}
	}
	if len(answers) == 0 || text(answers[len(answers)-1]) == "" {
		t.Errorf("no assistant message with text in the turn: %s", describeAll(evs))
	}
	if !info.EchoesPrompts {
		if len(users) > 0 {
			t.Errorf("EchoesPrompts is false, but the turn emitted user messages %+v", users)
		}
		return
	}
	if len(users) != 1 || text(users[0]) != prompt || users[0].ID == "" {
		t.Errorf("EchoesPrompts: want one user message %q with an id, got %+v", prompt, users)
	}
}

// awaitStored waits until the stored transcript holds exactly the live
// messages (ids, types, text, in order), woken by the transcript watch.
// When the adapter does not echo prompts, the stored prompts are skipped:
// the engine emits those itself.
func awaitStored(t *testing.T, tr runtimes.Transcripts, w *watch, dir, id string, live []rpc.Message, info runtimes.Info, timeout time.Duration) {
	t.Helper()
	want := keys(live, true)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		stored, total, err := tr.Messages(context.Background(), dir, id, 0, 10000, false)
		got := keys(stored, info.EchoesPrompts)
		if err == nil && slices.Equal(got, want) {
			if total != len(stored) {
				t.Errorf("Messages says %d in all, returned %d", total, len(stored))
			}
			return
		}
		select {
		case <-w.changed:
		case <-deadline.C:
			t.Fatalf("the stored messages (err %v) never matched the live ones:\nstored: %s\nlive:   %s",
				err, strings.Join(got, "\n        "), strings.Join(want, "\n        "))
		}
	}
}

func keys(ms []rpc.Message, users bool) []string {
	var out []string
	for _, m := range ms {
		if m.Type == rpc.MessageUser && !users {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %q", m.Type, m.ID, text(m)))
	}
	return out
}

// text is a message's text blocks joined.
func text(m rpc.Message) string {
	var parts []string
	for _, b := range m.Message.Content {
		if b.Type == rpc.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func messages(evs []runtimes.Event) []rpc.Message {
	var out []rpc.Message
	for _, ev := range evs {
		if m, ok := ev.(runtimes.MessageCompleted); ok {
			out = append(out, m.Message)
		}
	}
	return out
}
