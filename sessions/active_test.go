package sessions

// Workspaces seen from the engine: activating a session.

import (
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

func TestActivateChecksTheWorkspace(t *testing.T) {
	a := newMem()
	e, wsID := newEngine(t, a, nil)
	other, err := e.ws.Add(t.TempDir(), "other", false)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := start(t, e, a, newRecorder("c"), wsID)
	if err := e.Activate(other.ID, id, ""); !isCode(err, rpc.CodeSessionNotFound) {
		t.Fatalf("activating a session in another workspace = %v", err)
	}
	if err := e.Activate(wsID, id, ""); err != nil {
		t.Fatal(err)
	}
}
