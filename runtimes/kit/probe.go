package kit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/cdevd/cdevd/runtimes/proc"
)

// Probe is a CLI run briefly to ask it something (the models and commands
// it offers) over its stdio: lines written to it, its stdout lines read
// until the answer came, then the process group ended. The runner is
// proc's, so a probe ends its whole process tree as a session does.
type Probe struct {
	p       *proc.Process
	lines   chan []byte
	closing chan struct{}
	once    sync.Once
	next    int64
}

// probeLines is how many stdout lines may wait unread; the reader blocks
// beyond (never past Close).
const probeLines = 256

// StartProbe runs path with args in dir with env.
func StartProbe(path string, args []string, dir string, env []string) (*Probe, error) {
	pr := &Probe{lines: make(chan []byte, probeLines), closing: make(chan struct{})}
	p, err := proc.Start(proc.Config{
		Path: path, Args: args, Dir: dir, Env: env,
		KillGrace: time.Second,
		OnLine: func(line []byte) {
			select {
			case pr.lines <- append([]byte(nil), line...):
			case <-pr.closing:
			}
		},
	})
	if err != nil {
		return nil, err
	}
	pr.p = p
	return pr, nil
}

// Write sends v as one JSON line.
func (pr *Probe) Write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return pr.p.Write(append(b, '\n'))
}

// Await reads stdout lines until match takes one, which it returns; lines
// match does not take are dropped. It fails when ctx ends or the CLI exits
// first.
func (pr *Probe) Await(ctx context.Context, match func(line []byte) bool) ([]byte, error) {
	for {
		select {
		case line := <-pr.lines:
			if match(line) {
				return line, nil
			}
		case <-pr.p.Done():
			// Lines read before the exit are still queued.
			select {
			case line := <-pr.lines:
				if match(line) {
					return line, nil
				}
				continue
			default:
			}
			return nil, fmt.Errorf("the CLI exited with code %d before answering", pr.p.ExitCode())
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Call is a JSON-RPC 2.0 request to a CLI that speaks it on stdio (codex
// app-server, an ACP agent): it writes the request and decodes the
// answer's result into result. Requests the CLI sends meanwhile are left
// unanswered, and its notifications are passed to notify (nil: dropped).
func (pr *Probe) Call(ctx context.Context, method string, params, result any, notify func(method string, params json.RawMessage)) error {
	pr.next++
	id := pr.next
	if err := pr.Write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	want := strconv.FormatInt(id, 10)
	line, err := pr.Await(ctx, func(line []byte) bool {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil {
			return false
		}
		if m.Method != "" && m.ID == nil && notify != nil {
			notify(m.Method, m.Params)
		}
		return m.Method == "" && string(m.ID) == want
	})
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &reply); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if reply.Error != nil {
		return fmt.Errorf("%s: %w", method, errors.New(reply.Error.Message))
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(reply.Result, result)
}

// Close ends the CLI's process tree (stdin closed, then signals) and waits
// for it.
func (pr *Probe) Close() {
	pr.once.Do(func() { close(pr.closing) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = pr.p.Stop(ctx)
}
