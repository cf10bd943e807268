package bench

// The append-to-tail figure: a line appended to a watched transcript of a
// session cdevd does not run, until its claude_message reaches the watcher.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/claude"
	"github.com/cdevd/cdevd/testdoubles/claudegen"
)

// tailFixture is a stored Claude transcript watched over the wire.
type tailFixture struct {
	c    *conn
	file *os.File
	gen  *claudegen.Gen
}

func (t *tailFixture) close() {
	if t.c != nil {
		t.c.close()
	}
	if t.file != nil {
		t.file.Close()
	}
}

// appendTail: a line appended to a watched transcript (of a session cdevd
// does not run), until its claude_message reaches the watcher.
func (b *Bench) appendTail(ctx context.Context) (sample, error) {
	if b.fix.tail == nil {
		b.fix.tail = &tailFixture{}
		t := b.fix.tail
		var err error
		if t.c, err = connect(ctx, b.serve); err != nil {
			return sample{}, err
		}
		ws, err := b.mainWorkspace(t.c)
		if err != nil {
			return sample{}, err
		}
		id := sessionID(2, 0)
		dir := b.projectDir(b.path("ws", "main"))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return sample{}, err
		}
		t.gen = claudegen.New(id, b.path("ws", "main"))
		p := filepath.Join(dir, id+".jsonl")
		if err := t.gen.Write(p, 0, 10); err != nil {
			return sample{}, err
		}
		if t.file, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0); err != nil {
			return sample{}, err
		}
		if _, _, err := t.c.call(rpc.MethodWatch, rpc.WatchParams{WorkspaceID: ws.ID, SessionID: id, AgentType: claude.ID}, nil); err != nil {
			return sample{}, err
		}
	}
	t := b.fix.tail
	var lat []time.Duration
	for range b.sz.appends {
		// Prompts and text answers only: each is a message on its own
		// (a tool call may wait for its result).
		line := t.gen.Message()
		for t.gen.Messages()%4 > 2 || t.gen.Messages()%4 == 0 {
			line = t.gen.Message()
		}
		uuid := claudegen.MessageUUID(t.gen.Messages() - 1)
		start := time.Now()
		if _, err := t.file.WriteString(line + "\n"); err != nil {
			return sample{}, err
		}
		if err := t.c.ws.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
			return sample{}, err
		}
		for {
			_, msg, err := t.c.ws.ReadMessage()
			if err != nil {
				return sample{}, fmt.Errorf("waiting for the appended message: %w", err)
			}
			var e event
			if json.Unmarshal(msg, &e) == nil && e.Method == rpc.EventPrefix+rpc.EventMessage && e.Params.UUID == uuid {
				break
			}
		}
		lat = append(lat, time.Since(start))
	}
	return sample{value: percentile(lat, 0.5).Seconds(), value2: percentile(lat, 0.99).Seconds()}, nil
}
