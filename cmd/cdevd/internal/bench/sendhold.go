package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// sendHold: the first session/send of a new session in the generated
// repository, against the same in a repository of one file, taking turns.
// session/send answers once the prompt is handed to the CLI, which is after
// the turn's starting snapshot: the difference is how long that snapshot
// holds the prompt back (the scripted runtime's CLI answers at once). Each
// session's turn is awaited and the session stopped before the next, so
// that no end snapshot runs under a measurement.
func (b *Bench) sendHold(ctx context.Context) (sample, error) {
	r, err := b.ensureRepo(ctx)
	if err != nil {
		return sample{}, err
	}
	defer r.c.close()
	small := &repoFixture{dir: b.path("ws", "small"), env: r.env}
	if _, err := os.Stat(filepath.Join(small.dir, ".git")); err != nil {
		if err := small.generate(1, 0); err != nil {
			return sample{}, fmt.Errorf("the one-file repository: %w", err)
		}
	}
	sw, err := workspace(r.c, small.dir)
	if err != nil {
		return sample{}, err
	}
	firstSend := func(w rpc.Workspace) (time.Duration, error) {
		var started rpc.SessionStartResult
		if _, _, err := r.c.call(rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scriptedID}, &started); err != nil {
			return 0, err
		}
		_, took, err := r.c.call(rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: started.SessionID, Prompt: "hello", AgentType: scriptedID}, nil)
		if err != nil {
			return 0, err
		}
		if err := awaitEvent(r.c, rpc.EventTurnCompleted, started.SessionID); err != nil {
			return 0, err
		}
		_, _, err = r.c.call(rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: started.SessionID, AgentType: scriptedID}, nil)
		return took, err
	}
	var big, one []time.Duration
	for i := range b.sz.repoCalls {
		first, second := r.ws, sw
		if i%2 == 1 {
			first, second = second, first
		}
		d1, err := firstSend(first)
		if err != nil {
			return sample{}, err
		}
		d2, err := firstSend(second)
		if err != nil {
			return sample{}, err
		}
		if i%2 == 1 {
			d1, d2 = d2, d1
		}
		big, one = append(big, d1), append(one, d2)
	}
	return sample{value: percentile(big, 0.5).Seconds(), base: percentile(one, 0.5).Seconds()}, nil
}

// awaitEvent reads c's frames until the event (method without its prefix)
// of session id; a minute at most.
func awaitEvent(c *conn, event, id string) error {
	if err := c.ws.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		return err
	}
	defer func() { _ = c.ws.SetReadDeadline(time.Time{}) }()
	for {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", event, err)
		}
		var n struct {
			Method string `json:"method"`
			Params struct {
				SessionID string `json:"session_id"`
			} `json:"params"`
		}
		if json.Unmarshal(msg, &n) == nil && n.Method == rpc.EventPrefix+event && n.Params.SessionID == id {
			return nil
		}
	}
}
