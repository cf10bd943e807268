package bench

// Two figures of the composer (issue 29), each beside the bare CLI's own
// time, on the bench's clock (agent.go):
//   - attach-image: a {image} image sent inline with session/send to a warm
//     Claude Code session, from the client's first byte of the frame to the
//     model API's request carrying it; the bare CLI is given the same
//     message on its stdin;
//   - queue-handover: a prompt queued during a turn, from the turn's end
//     (the model's held answer let go) to the queued prompt's request; the
//     bare CLI is given the next prompt as soon as it prints its result.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/testdoubles/testimage"
)

var agentFigures = []figure{
	{key: "attach-image", title: "Claude Code: a {image} image in session/send, the client's frame → the model API's request",
		baseName: "bare CLI, the same message on its stdin", target: "measured (issue 29)", measure: (*Bench).attachImage},
	{key: "queue-handover", title: "Claude Code: the queue's hand-over, a turn's end → the queued prompt's request",
		baseName: "bare CLI, the prompt written on its result", target: "measured (issue 29)", measure: (*Bench).queueHandover},
}

// attachImage: for each of imageSends, a new warm cdevd session and a new
// warm bare CLI (a conversation carries its images into every later
// request: each image is the first of its conversation), the image sent
// to each.
func (b *Bench) attachImage(ctx context.Context) (sample, error) {
	img := testimage.PNG(29, b.sz.imageSide, b.sz.imageSide)
	var viaCdevd, bare []time.Duration
	for range b.sz.imageSends {
		took, err := b.imageViaCdevd(ctx, img)
		if err != nil {
			return sample{}, err
		}
		viaCdevd = append(viaCdevd, took)
		if took, err = b.fix.agent.imageToBare(ctx, img); err != nil {
			return sample{}, err
		}
		bare = append(bare, took)
	}
	return sample{value: percentile(viaCdevd, 0.5).Seconds(), base: percentile(bare, 0.5).Seconds()}, nil
}

// imageViaCdevd sends img inline to a new warm session, on a connection of
// its own (one left unread while the bare CLI runs would be dropped), and
// gives the time from the frame's first byte to the model's request.
func (b *Bench) imageViaCdevd(ctx context.Context, img []byte) (time.Duration, error) {
	f, c, ws, err := b.agentConn(ctx)
	if err != nil {
		return 0, err
	}
	defer c.close()
	sid, err := f.warmSession(c, ws)
	if err != nil {
		return 0, err
	}
	prompt := f.prompt("image")
	frame := c.frame(rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: sid, AgentType: claude.ID, Prompt: prompt,
		Attachments: []rpc.Attachment{{Kind: rpc.AttachImage, Data: base64.StdEncoding.EncodeToString(img)}}})
	id := c.next
	began := time.Now()
	if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		return 0, err
	}
	read := readFrames(c, id, sid, 1)
	took, err := f.imageArrival(ctx, prompt, began)
	if err := errors.Join(err, <-read); err != nil {
		return 0, err
	}
	return took, f.stop(c, sid)
}

// imageToBare writes img to a new warm bare CLI and gives the time from
// the write to the model's request.
func (f *agentFixture) imageToBare(ctx context.Context, img []byte) (time.Duration, error) {
	cli, err := f.startBare()
	if err != nil {
		return 0, err
	}
	var took time.Duration
	if err = cli.turn(f.prompt("warm up")); err == nil {
		prompt := f.prompt("image")
		line := userLine(prompt, img)
		began := time.Now()
		if err = cli.write(line); err == nil {
			if took, err = f.imageArrival(ctx, prompt, began); err == nil {
				err = cli.result()
			}
		}
	}
	return took, joinClose(err, cli)
}

// imageArrival is the time from began to prompt's request, which must
// carry the image.
func (f *agentFixture) imageArrival(ctx context.Context, prompt string, began time.Time) (time.Duration, error) {
	at, images, err := f.model.arrival(ctx, prompt)
	if err != nil {
		return 0, err
	}
	if images != 1 {
		return 0, fmt.Errorf("the request of %q carried %d images, want the one sent", prompt, images)
	}
	return at.Sub(began), nil
}

// queueHandover: handovers hand-overs in one warm cdevd session, then as
// many in one warm bare CLI; each follows a turn held open at the fake.
func (b *Bench) queueHandover(ctx context.Context) (sample, error) {
	f, c, ws, err := b.agentConn(ctx)
	if err != nil {
		return sample{}, err
	}
	defer c.close()
	sid, err := f.warmSession(c, ws)
	if err != nil {
		return sample{}, err
	}
	send := func(prompt string) (rpc.SessionSendResult, error) {
		var res rpc.SessionSendResult
		_, _, err := c.call(rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: sid, AgentType: claude.ID, Prompt: prompt}, &res)
		return res, err
	}
	var viaCdevd, bare []time.Duration
	for range b.sz.handovers {
		hold, next := f.prompt("hold"), f.prompt("next")
		if _, err := send(hold); err != nil {
			return sample{}, err
		}
		if _, _, err := f.model.arrival(ctx, hold); err != nil {
			return sample{}, err
		}
		if res, err := send(next); err != nil || res.Status != rpc.SendQueued {
			return sample{}, fmt.Errorf("session/send during a turn: %+v, %v; want it queued", res, err)
		}
		read := readFrames(c, -1, sid, 2) // the held turn's end and the queued one's
		ended := f.model.release(hold)
		at, _, err := f.model.arrival(ctx, next)
		if err := errors.Join(err, <-read); err != nil {
			return sample{}, err
		}
		viaCdevd = append(viaCdevd, at.Sub(ended))
	}
	if err := f.stop(c, sid); err != nil {
		return sample{}, err
	}
	c.close() // unread while the bare CLI runs, cdevd would drop it

	cli, err := f.startBare()
	if err != nil {
		return sample{}, err
	}
	err = cli.turn(f.prompt("warm up"))
	for i := 0; err == nil && i < b.sz.handovers; i++ {
		hold, next := f.prompt("hold"), f.prompt("next")
		if err = cli.write(userLine(hold, nil)); err != nil {
			break
		}
		if _, _, err = f.model.arrival(ctx, hold); err != nil {
			break
		}
		ended := f.model.release(hold)
		if err = cli.result(); err != nil {
			break
		}
		if err = cli.write(userLine(next, nil)); err != nil {
			break
		}
		var at time.Time
		if at, _, err = f.model.arrival(ctx, next); err != nil {
			break
		}
		bare = append(bare, at.Sub(ended))
		err = cli.result()
	}
	if err := joinClose(err, cli); err != nil {
		return sample{}, err
	}
	return sample{value: percentile(viaCdevd, 0.5).Seconds(), base: percentile(bare, 0.5).Seconds()}, nil
}

// joinClose closes the bare CLI, and gives err or else the close's error.
func joinClose(err error, cli *bareClaude) error {
	if cerr := cli.close(); err == nil {
		err = cerr
	}
	return err
}

// agentConn is the agent fixture (made on first use), a connection to its
// daemon, and the workspace of its sessions.
func (b *Bench) agentConn(ctx context.Context) (*agentFixture, *conn, rpc.Workspace, error) {
	f, err := b.ensureAgent()
	if err != nil {
		return nil, nil, rpc.Workspace{}, err
	}
	c, err := connect(ctx, f.serve)
	if err != nil {
		return nil, nil, rpc.Workspace{}, err
	}
	ws, err := workspace(c, f.dir)
	if err != nil {
		c.close()
		return nil, nil, rpc.Workspace{}, err
	}
	return f, c, ws, nil
}

// warmSession starts a Claude session and runs one turn in it: the CLI is
// up and has answered once.
func (f *agentFixture) warmSession(c *conn, ws rpc.Workspace) (string, error) {
	var started rpc.SessionStartResult
	if _, _, err := c.call(rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: ws.ID, AgentType: claude.ID}, &started); err != nil {
		return "", err
	}
	// A new CLI's first turn can take over a minute on a loaded machine:
	// awaited for agentWait.
	frame := c.frame(rpc.MethodSessionSend, rpc.SessionSendParams{SessionID: started.SessionID, Prompt: f.prompt("warm up"),
		AgentType: claude.ID})
	if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		return "", err
	}
	return started.SessionID, awaitFrames(c, c.next, started.SessionID, 1)
}

// stop stops the session (its CLI exits).
func (f *agentFixture) stop(c *conn, sid string) error {
	_, _, err := c.call(rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: sid, AgentType: claude.ID}, nil)
	return err
}

// readFrames runs awaitFrames on its own goroutine: the connection is read
// (and cdevd's pings answered, which a loaded machine's slow CLI would
// otherwise outlast) while the bench waits on the fake. Nothing else may
// use c until its error (or nil) comes.
func readFrames(c *conn, id int, sid string, turns int) <-chan error {
	done := make(chan error, 1)
	go func() { done <- awaitFrames(c, id, sid, turns) }()
	return done
}

// awaitFrames reads c's frames until the answer to request id (none when
// id < 0) and turns turn_completed events of session sid have come, within
// agentWait; an error answer or a turn's error fails.
func awaitFrames(c *conn, id int, sid string, turns int) error {
	if err := c.ws.SetReadDeadline(time.Now().Add(agentWait)); err != nil {
		return err
	}
	defer func() { _ = c.ws.SetReadDeadline(time.Time{}) }()
	answered := id < 0
	for !answered || turns > 0 {
		_, msg, err := c.ws.ReadMessage()
		if err != nil {
			return fmt.Errorf("awaiting %d turns of %s: %w", turns, sid, err)
		}
		var m struct {
			ID     *int       `json:"id"`
			Method string     `json:"method"`
			Error  *rpc.Error `json:"error"`
			Params struct {
				SessionID string `json:"session_id"`
			} `json:"params"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			return err
		}
		switch {
		case m.ID != nil && *m.ID == id && m.Error != nil:
			return fmt.Errorf("request %d: %d %s", id, m.Error.Code, m.Error.Message)
		case m.ID != nil && *m.ID == id:
			answered = true
		case m.Params.SessionID != sid:
		case m.Method == rpc.EventPrefix+rpc.EventTurnCompleted:
			turns--
		case m.Method == rpc.EventPrefix+rpc.EventError:
			return fmt.Errorf("session %s: a turn failed: %s", sid, msg)
		}
	}
	return nil
}
