package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// cliEnv marks a process the adapter started as its fake CLI.
const cliEnv = "CDEVD_SCRIPTED_CLI"

// cliVersion is what the fake answers to --version.
const cliVersion = "1.0.0"

// IsCLI reports whether this process was started by the adapter as the fake
// CLI; TestMain then calls Main instead of running the tests.
func IsCLI() bool { return os.Getenv(cliEnv) == "1" }

// Main runs the fake CLI on stdin and stdout, then exits the process; it
// never returns.
func Main() {
	os.Exit(runCLI(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func runCLI(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scripted", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.Bool("version", false, "print the version and exit")
	id := fs.String("session-id", "", "session id (without it, the CLI makes one, as Codex and Gemini do)")
	dir := fs.String("dir", "", "workspace directory (required)")
	stateDir := fs.String("state-dir", "", "where transcripts are kept (required)")
	resume := fs.Bool("resume", false, "continue the stored session")
	model := fs.String("model", "", "model name put on assistant messages")
	mode := fs.String("permission-mode", "", "bypassPermissions allows every tool")
	yolo := fs.Bool("yolo", false, "allow every tool without asking")
	delay := fs.Duration("transcript-delay", 0, "write each transcript line this long after printing it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, "scripted", cliVersion)
		return 0
	}
	if *dir == "" || *stateDir == "" {
		fmt.Fprintln(stderr, "scripted: --dir and --state-dir are required")
		return 2
	}
	if *id == "" {
		if *resume {
			fmt.Fprintln(stderr, "scripted: --resume needs --session-id")
			return 2
		}
		*id = "fake-" + uuid.NewString()
	}

	c := &cli{
		out:     stdout,
		session: *id,
		model:   *model,
		yolo:    *yolo || *mode == string(rpc.PermissionBypass),
		always:  map[string]bool{},
		msgID:   uuid.NewString(),
	}
	path := filepath.Join(projectDir(*stateDir, *dir), *id+transcriptExt)
	if *resume {
		if _, err := os.Stat(path); err != nil {
			c.send(output{Type: outError, Code: codeNoSession, Error: "no conversation found with session id " + *id})
			return 1
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		c.send(output{Type: outError, Code: runtimes.CodeStartFailed, Error: err.Error()})
		return 1
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		c.send(output{Type: outError, Code: runtimes.CodeStartFailed, Error: err.Error()})
		return 1
	}
	defer f.Close()
	c.transcript = f
	if *delay > 0 {
		late := newLateWriter(f, *delay)
		defer late.close()
		c.late = late
	}

	// SIGTERM and the end of stdin both end the fake cleanly (exit 0).
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	c.term = term
	in := make(chan input)
	go readInput(stdin, in)
	c.in = in

	c.send(output{Type: outInit, SessionID: *id})
	return c.run()
}

// readInput decodes stdin lines until EOF (or a line it cannot decode),
// then closes in.
func readInput(r io.Reader, in chan<- input) {
	defer close(in)
	dec := json.NewDecoder(r)
	for {
		var m input
		if err := dec.Decode(&m); err != nil {
			return
		}
		in <- m
	}
}

// cli is the fake's state.
type cli struct {
	out        io.Writer
	transcript *os.File
	late       *lateWriter // set: transcript lines are written late
	in         <-chan input
	term       <-chan os.Signal

	session string
	model   string
	yolo    bool
	always  map[string]bool // tools allowed for the rest of the session

	msgID     string // the assistant message being written
	outTokens int    // characters of assistant output in this turn
}

// exitCode makes the fake exit with this code.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

var errInterrupted = errors.New("the turn was interrupted")

// run serves turns until the input ends or SIGTERM arrives.
func (c *cli) run() int {
	for {
		select {
		case m, ok := <-c.in:
			if !ok {
				return 0
			}
			if m.Type != inUser {
				continue // an interrupt or answer that arrived after its turn
			}
			if m.Model != "" {
				c.model = m.Model
			}
			var exit exitCode
			if err := c.turn(m.Text); errors.As(err, &exit) {
				return int(exit)
			}
		case <-c.term:
			return 0
		}
	}
}

// turn runs one prompt and reports how it ended on stdout. It returns an
// exitCode error when the fake must exit.
func (c *cli) turn(prompt string) error {
	start := time.Now()
	c.outTokens = 0
	err := c.play(prompt)
	var exit exitCode
	switch {
	case errors.As(err, &exit):
		return err
	case errors.Is(err, errInterrupted):
		c.send(output{Type: outError, Code: runtimes.CodeInterrupted, Error: err.Error()})
	case err != nil:
		c.send(output{Type: outError, Code: runtimes.CodeRuntimeError, Error: err.Error()})
	default:
		c.send(output{
			Type:       outResult,
			Usage:      &rpc.Usage{InputTokens: int64(len(prompt)), OutputTokens: int64(c.outTokens)},
			StopReason: "end_turn",
			DurationMS: time.Since(start).Milliseconds(),
		})
	}
	return nil
}

// play records the prompt and runs its steps.
func (c *cli) play(prompt string) error {
	// The prompt is echoed with its stored id, as Claude's
	// --replay-user-messages does, so live and stored copies match.
	p := c.newMessage(rpc.MessageUser, uuid.NewString(), rpc.ContentBlock{Type: rpc.BlockText, Text: prompt})
	if err := c.record(p); err != nil {
		return err
	}
	c.send(output{Type: outMessage, Message: &p})
	for _, s := range steps(prompt) {
		if err := c.do(s); err != nil {
			return err
		}
	}
	return nil
}

// steps reads a prompt as a script; any other prompt is echoed.
func steps(prompt string) []step {
	var s script
	if strings.HasPrefix(strings.TrimSpace(prompt), "{") && json.Unmarshal([]byte(prompt), &s) == nil && s.Steps != nil {
		return s.Steps
	}
	head, answer := "echo: ", "echo: "+prompt
	return []step{{Delta: &head}, {Delta: &prompt}, {Message: &answer}}
}

func (c *cli) do(s step) error {
	switch {
	case s.Delta != nil:
		c.send(output{Type: outDelta, MessageID: c.msgID, Phase: rpc.PhaseText, Text: *s.Delta})
	case s.Message != nil:
		return c.complete(rpc.ContentBlock{Type: rpc.BlockText, Text: *s.Message})
	case s.Thinking != nil:
		c.send(output{Type: outDelta, MessageID: c.msgID, Phase: rpc.PhaseThinking, Text: *s.Thinking})
		return c.complete(rpc.ContentBlock{Type: rpc.BlockThinking, Thinking: *s.Thinking})
	case s.Permission != nil:
		return c.permission(*s.Permission)
	case s.Question != nil:
		return c.question(*s.Question)
	case s.SleepMS > 0:
		_, err := c.wait("", time.After(time.Duration(s.SleepMS)*time.Millisecond))
		return err
	case s.WaitInterrupt:
		_, err := c.wait("", nil)
		return err
	case s.Crash != nil:
		return exitCode(*s.Crash)
	case s.IgnoreTerm:
		signal.Ignore(syscall.SIGTERM)
	case s.Hang:
		// A hung CLI reads and writes nothing; only a signal ends it.
		<-c.term
		return exitCode(0)
	case s.Garbage != nil:
		c.writeLine([]byte(*s.Garbage))
	case s.BigMessage > 0:
		return c.complete(rpc.ContentBlock{Type: rpc.BlockText, Text: strings.Repeat("x", s.BigMessage)})
	case s.Bigline > 0:
		c.writeLine(bytes.Repeat([]byte("x"), s.Bigline))
	case s.Fail != nil:
		return errors.New(*s.Fail)
	case s.Blocks != nil:
		return c.completeBlocks(*s.Blocks)
	default:
		return errors.New("unknown script step")
	}
	return nil
}

func (c *cli) permission(p permissionStep) error {
	decision := runtimes.Allow
	if !c.yolo && !c.always[p.Tool] {
		id := uuid.NewString()
		c.send(output{Type: outPermission, RequestID: id, Permission: &p})
		a, err := c.wait(id, nil)
		if err != nil {
			return err
		}
		decision = a.Decision
		if decision == runtimes.AllowAlways {
			c.always[p.Tool] = true
		}
	}
	return c.complete(rpc.ContentBlock{Type: rpc.BlockText, Text: "permission: " + string(decision)})
}

func (c *cli) question(q questionStep) error {
	id := uuid.NewString()
	c.send(output{Type: outQuestion, RequestID: id, Question: &q})
	a, err := c.wait(id, nil)
	if err != nil {
		return err
	}
	return c.complete(rpc.ContentBlock{Type: rpc.BlockText, Text: "answer: " + a.Text})
}

// wait blocks until the answer to requestID (when set), the timer (when
// set), an interrupt, or the end of the fake.
func (c *cli) wait(requestID string, timer <-chan time.Time) (input, error) {
	for {
		select {
		case <-timer:
			return input{}, nil
		case <-c.term:
			return input{}, exitCode(0)
		case m, ok := <-c.in:
			switch {
			case !ok:
				return input{}, exitCode(0)
			case m.Type == inInterrupt:
				if requestID != "" {
					c.send(output{Type: outCancelled, RequestID: requestID})
				}
				return input{}, errInterrupted
			case m.Type == inAnswer && requestID != "" && m.RequestID == requestID:
				return m, nil
			case m.Type == inSteer:
				// Input for the running turn: kept in the conversation
				// as the user's, as a steering CLI keeps it.
				if err := c.emit(c.newMessage(rpc.MessageUser, uuid.NewString(),
					rpc.ContentBlock{Type: rpc.BlockText, Text: m.Text})); err != nil {
					return input{}, err
				}
			}
		}
	}
}

// complete records and prints the assistant message being written, then
// starts the next one.
func (c *cli) complete(b rpc.ContentBlock) error {
	m := c.newMessage(rpc.MessageAssistant, c.msgID, b)
	if err := c.record(m); err != nil {
		return err
	}
	c.send(output{Type: outMessage, Message: &m})
	c.msgID = uuid.NewString()
	c.outTokens += len(b.Text) + len(b.Thinking)
	return nil
}

// completeBlocks records and prints a message of the step's blocks: an
// assistant's under the id its deltas used, a user's (tool results) under
// an id of its own.
func (c *cli) completeBlocks(b blocksStep) error {
	if b.Role != rpc.MessageUser {
		m := c.newMessage(rpc.MessageAssistant, c.msgID, b.Content...)
		c.msgID = uuid.NewString()
		return c.emit(m)
	}
	return c.emit(c.newMessage(rpc.MessageUser, uuid.NewString(), b.Content...))
}

func (c *cli) emit(m rpc.Message) error {
	if err := c.record(m); err != nil {
		return err
	}
	c.send(output{Type: outMessage, Message: &m})
	return nil
}

func (c *cli) newMessage(t rpc.MessageType, id string, b ...rpc.ContentBlock) rpc.Message {
	body := rpc.MessageBody{Role: string(t), Content: b}
	if t == rpc.MessageAssistant {
		body.Model = c.model
	}
	return rpc.Message{
		ID:        id,
		SessionID: c.session,
		Type:      t,
		UUID:      uuid.NewString(),
		Timestamp: rpc.FormatTime(time.Now()),
		Message:   body,
	}
}

// record appends m to the transcript before it is printed, so that a reader
// who saw the message on stdout finds it in the file; or, with
// --transcript-delay, some time after it was printed.
func (c *cli) record(m rpc.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if c.late != nil {
		c.late.write(append(b, '\n'))
		return nil
	}
	if _, err := c.transcript.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	return nil
}

func (c *cli) send(o output) {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err) // output holds only marshalable types
	}
	c.writeLine(b)
}

// writeLine prints one line with a single write, so that a crash never
// leaves half of it.
func (c *cli) writeLine(b []byte) {
	_, _ = c.out.Write(append(b, '\n'))
}

// lateWriter writes lines to the transcript a fixed time after they were
// handed to it, in order, like a CLI that flushes its transcript late.
type lateWriter struct {
	f     *os.File
	delay time.Duration
	lines chan lateLine
	done  chan struct{}
}

type lateLine struct {
	due  time.Time
	line []byte
}

func newLateWriter(f *os.File, delay time.Duration) *lateWriter {
	w := &lateWriter{f: f, delay: delay, lines: make(chan lateLine, 1024), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for l := range w.lines {
			time.Sleep(time.Until(l.due))
			_, _ = w.f.Write(l.line)
		}
	}()
	return w
}

func (w *lateWriter) write(line []byte) {
	w.lines <- lateLine{due: time.Now().Add(w.delay), line: line}
}

// close writes what is still due before the fake exits.
func (w *lateWriter) close() {
	close(w.lines)
	<-w.done
}
