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

// The send-hold figures: how long a turn's starting snapshot holds the
// prompt back in the generated repository, against the same in a
// repository of one file, taking turns. session/send answers once the
// prompt is handed to the CLI, which is after that snapshot; the scripted
// runtime's CLI answers at once, so the difference is the snapshot's.
//
//   - send-hold-first: the first turn ever in the repository, after a
//     daemon restart with the private indexes removed (the snapshot is
//     `git add -A` over a copy of the user's index: every changed and
//     untracked file hashed);
//   - send-hold: the first send of a new session once a turn of another
//     session ended there and nothing changed since (the last end stands
//     for the start);
//   - send-hold-changed: the same after one file of the tree changed (a
//     fresh snapshot, through the private index kept current).
//
// Before a measured send, the repository's last end snapshot is awaited
// (warm), so that none runs under the measurement.

// holdRepos are the two repositories of the send-hold figures.
type holdRepos struct {
	r          *repoConn
	small      *repoFixture
	big, other rpc.Workspace
}

func (b *Bench) holdRepos(ctx context.Context) (*holdRepos, error) {
	r, err := b.ensureRepo(ctx)
	if err != nil {
		return nil, err
	}
	small := &repoFixture{dir: b.path("ws", "small"), env: r.env}
	if _, err := os.Stat(filepath.Join(small.dir, ".git")); err != nil {
		if err := small.generate(1, 0); err != nil {
			r.c.close()
			return nil, fmt.Errorf("the one-file repository: %w", err)
		}
	}
	sw, err := workspace(r.c, small.dir)
	if err != nil {
		r.c.close()
		return nil, err
	}
	return &holdRepos{r: r, small: small, big: r.ws, other: sw}, nil
}

// firstSend starts a session in w and times its first send; the session
// is stopped once its turn ended.
func (h *holdRepos) firstSend(w rpc.Workspace) (time.Duration, error) {
	c := h.r.c
	var started rpc.SessionStartResult
	if _, _, err := c.call(rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scriptedID}, &started); err != nil {
		return 0, err
	}
	// The turn may end before send's answer is read: both are awaited
	// on the one reading.
	took, err := sendAndAwait(c, rpc.SessionSendParams{SessionID: started.SessionID, Prompt: "hello", AgentType: scriptedID},
		rpc.EventTurnCompleted)
	if err != nil {
		return 0, err
	}
	_, _, err = c.call(rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: started.SessionID, AgentType: scriptedID}, nil)
	return took, err
}

// warm runs two turns of one session in w, untimed: the second send waits
// for the first turn's end snapshot, so that none is under way after.
func (h *holdRepos) warm(w rpc.Workspace) error {
	c := h.r.c
	var started rpc.SessionStartResult
	if _, _, err := c.call(rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: scriptedID}, &started); err != nil {
		return err
	}
	for range 2 {
		if _, err := sendAndAwait(c, rpc.SessionSendParams{SessionID: started.SessionID, Prompt: "hello", AgentType: scriptedID},
			rpc.EventTurnCompleted); err != nil {
			return err
		}
	}
	_, _, err := c.call(rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: started.SessionID, AgentType: scriptedID}, nil)
	return err
}

// pairs measures calls sends in each repository, taking turns, and
// returns their medians; before runs ahead of each send (nil: nothing).
func (h *holdRepos) pairs(calls int, before func(w rpc.Workspace) error) (sample, error) {
	var big, one []time.Duration
	for i := range calls {
		ws := []rpc.Workspace{h.big, h.other}
		if i%2 == 1 {
			ws[0], ws[1] = ws[1], ws[0]
		}
		var got [2]time.Duration
		for j, w := range ws {
			if err := h.warm(w); err != nil {
				return sample{}, err
			}
			if before != nil {
				if err := before(w); err != nil {
					return sample{}, err
				}
			}
			d, err := h.firstSend(w)
			if err != nil {
				return sample{}, err
			}
			got[j] = d
		}
		if i%2 == 1 {
			got[0], got[1] = got[1], got[0]
		}
		big, one = append(big, got[0]), append(one, got[1])
	}
	return sample{value: percentile(big, 0.5).Seconds(), base: percentile(one, 0.5).Seconds()}, nil
}

// sendHold is send-hold: a new session's first send after an earlier turn.
func (b *Bench) sendHold(ctx context.Context) (sample, error) {
	h, err := b.holdRepos(ctx)
	if err != nil {
		return sample{}, err
	}
	defer h.r.c.close()
	return h.pairs(b.sz.repoCalls, nil)
}

// sendHoldChanged is send-hold-changed: the same after a file changed.
func (b *Bench) sendHoldChanged(ctx context.Context) (sample, error) {
	h, err := b.holdRepos(ctx)
	if err != nil {
		return sample{}, err
	}
	defer h.r.c.close()
	n := 0
	return h.pairs(b.sz.repoCalls, func(w rpc.Workspace) error {
		n++
		// A file of the tree edited, as a user would between turns: in
		// the big repository one of the generated files, in the small one
		// its only file.
		return os.WriteFile(filepath.Join(w.Path, heldFile(w.ID == h.big.ID)), []byte("edited "+strconv.Itoa(n)+"\n"), 0o644)
	})
}

// heldFile is the file send-hold-changed edits.
func heldFile(big bool) string {
	if big {
		return filepath.Join("d7", "f777.txt")
	}
	return filepath.Join("d0", "f0.txt")
}

// sendHoldFirst is send-hold-first: once per repetition, the daemon
// restarts without its private indexes, and the first send in each
// repository is timed.
func (b *Bench) sendHoldFirst(ctx context.Context) (sample, error) {
	b.closeFixtures()
	if err := b.serve.stop(); err != nil {
		return sample{}, fmt.Errorf("stop cdevd: %w", err)
	}
	if err := os.RemoveAll(filepath.Join(b.path("cdevd"), "turns", "index")); err != nil {
		return sample{}, err
	}
	var err error
	if b.serve, err = b.startServe(b.path("home"), b.path("cdevd")); err != nil {
		return sample{}, err
	}
	h, err := b.holdRepos(ctx)
	if err != nil {
		return sample{}, err
	}
	defer h.r.c.close()
	big, err := h.firstSend(h.big)
	if err != nil {
		return sample{}, err
	}
	one, err := h.firstSend(h.other)
	if err != nil {
		return sample{}, err
	}
	return sample{value: big.Seconds(), base: one.Seconds()}, nil
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
