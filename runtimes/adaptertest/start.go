package adaptertest

// The Start checks: permission modes, new session ids, and resuming an
// unknown session.

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/runtimes"
)

func (c *suite) permissionModes(t *testing.T) {
	e := c.env(t)
	for _, m := range e.Adapter.Info().PermissionModes {
		s := c.start(t, e, runtimes.StartRequest{PermissionMode: m})
		if err := runtimes.ValidSessionID(s.ID()); err != nil {
			t.Errorf("mode %s: %v", m, err)
		}
		s.closeIdle(t)
	}
}

func (c *suite) newSessionID(t *testing.T) {
	e := c.env(t)
	s := c.start(t, e, runtimes.StartRequest{})
	if err := runtimes.ValidSessionID(s.ID()); err != nil {
		t.Errorf("new session: %v", err)
	}
	s.closeIdle(t)

	// A client's id: a UUID, the only kind the engine passes on.
	id := uuid.NewString()
	if e.Adapter.Info().ClientIDs {
		s := c.start(t, e, runtimes.StartRequest{SessionID: id})
		if s.ID() != id {
			t.Errorf("started with the client's id %s, runs as %s", id, s.ID())
		}
		s.closeIdle(t)
		return
	}
	rec := newRecorder(c.h.Timeout)
	s2, err := e.Adapter.Start(c.ctx(t), runtimes.StartRequest{SessionID: id, Dir: e.Dir}, rec.sink)
	if err == nil {
		_ = s2.Close(c.ctx(t))
		t.Fatalf("Info.ClientIDs is false, but Start accepted the client's id %s (runs as %s)", id, s2.ID())
	}
	if n := rec.len(); n > 0 {
		t.Errorf("a refused Start delivered %d events", n)
	}
	if left := leftProcesses(e.Mark); len(left) > 0 {
		t.Errorf("a refused Start left processes %v", left)
	}
}

func (c *suite) resumeUnknown(t *testing.T) {
	e := c.env(t)
	rec := newRecorder(c.h.Timeout)
	s, err := e.Adapter.Start(c.ctx(t), runtimes.StartRequest{SessionID: uuid.NewString(), Resume: true, Dir: e.Dir}, rec.sink)
	if err == nil {
		_ = s.Close(c.ctx(t))
	}
	if !errors.Is(err, runtimes.ErrNoSession) {
		t.Errorf("resume of an id never stored: %v, want an error wrapping ErrNoSession", err)
	}
	if left := leftProcesses(e.Mark); len(left) > 0 {
		t.Errorf("a refused resume left processes %v", left)
	}
}
