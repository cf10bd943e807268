package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gorilla/websocket"

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
		// The turn may end before send's answer is read: both are awaited
		// on the one reading.
		took, err := sendAndAwait(r.c, rpc.SessionSendParams{SessionID: started.SessionID, Prompt: "hello", AgentType: scriptedID},
			rpc.EventTurnCompleted)
		if err != nil {
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

// sendAndAwait sends session/send and reads c's frames until both its
// answer and the session's event (method without its prefix) have come, a
// minute at most; it returns the time to the answer.
func sendAndAwait(c *conn, p rpc.SessionSendParams, event string) (time.Duration, error) {
	frame := c.frame(rpc.MethodSessionSend, p)
	id := strconv.Itoa(c.next)
	if err := c.ws.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		return 0, err
	}
	defer func() { _ = c.ws.SetReadDeadline(time.Time{}) }()
	began := time.Now()
	if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		return 0, err
	}
	var took time.Duration
	answered, ended := false, false
	for !answered || !ended {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			return 0, fmt.Errorf("session/send and %s: %w", event, err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *rpc.Error      `json:"error"`
			Params struct {
				SessionID string `json:"session_id"`
			} `json:"params"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			return 0, err
		}
		switch {
		case string(m.ID) == id && m.Error != nil:
			return 0, fmt.Errorf("session/send: %d %s", m.Error.Code, m.Error.Message)
		case string(m.ID) == id:
			took, answered = time.Since(began), true
		case m.Method == rpc.EventPrefix+event && m.Params.SessionID == p.SessionID:
			ended = true
		}
	}
	return took, nil
}
