package stdiorpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
)

// DefaultMaxLine bounds one incoming line. Codex's turn/completed carries
// every item of the turn, so this is generous; a longer line is skipped.
const DefaultMaxLine = 8 << 20

// readBuffer is the bufio size; lines longer than it are assembled.
const readBuffer = 64 << 10

var (
	// ErrClosed is wrapped by every error a Call, Notify or Reply returns
	// once the connection is over; the same error wraps the cause.
	ErrClosed = errors.New("stdiorpc: connection closed")
	// ErrLineTooLong is reported (OnError) for a line over the maximum.
	ErrLineTooLong = errors.New("stdiorpc: line too long")
	// ErrMalformed is reported (OnError) for a line that is not a JSON-RPC
	// message.
	ErrMalformed = errors.New("stdiorpc: malformed message")
	// ErrUnknownReply is reported (OnError) for a reply whose id no Call
	// waits for (never sent, or its Call gave up through its context).
	ErrUnknownReply = errors.New("stdiorpc: reply to no pending call")
	// ErrAlreadyReplied is returned by a second Reply to the same request.
	ErrAlreadyReplied = errors.New("stdiorpc: request already answered")

	// errLocalClose is the cause when Close ended the connection.
	errLocalClose = errors.New("closed by this side")
)

// Error is a JSON-RPC error object: what a Call returns when the CLI
// answered with an error, and what ReplyError sends.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("jsonrpc error %d: %s (%s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Handlers receive what the CLI sends on its own. OnRequest and
// OnNotification run on one goroutine, one message at a time, in the order
// the lines arrived; they may Call and Notify, but must return (a request is
// answered later through Request.Reply, not by blocking). OnError gets every
// line that was skipped; when nil, those are logged at warn level.
type Handlers struct {
	OnRequest      func(*Request)
	OnNotification func(method string, params json.RawMessage)
	OnError        func(error)
}

// Options tune a Peer; the zero value is usable.
type Options struct {
	MaxLine int // DefaultMaxLine when zero
	// MaxQueued bounds the bytes read and not yet handled
	// (DefaultMaxQueued when zero); the reader waits for room.
	MaxQueued int
	Logger    *zap.Logger // zap.NewNop when nil
	// OrderedReplies delivers each reply to its Call only after every
	// message read before it was handled, as the line order says: a
	// protocol whose reply ends a stream of notifications (ACP's
	// session/prompt) then never sees the end before the stream. Handlers
	// must not wait for a Call's reply: it would queue behind them.
	OrderedReplies bool
}

// Request is a request the CLI sent. Answer it exactly once, with Reply or
// ReplyError, from any goroutine.
type Request struct {
	// ID is the id as it came on the wire (a number, 0 included, or a
	// string); the reply carries these bytes unchanged.
	ID     json.RawMessage
	Method string
	Params json.RawMessage

	peer    *Peer
	replied atomic.Bool
}

// Reply answers the request with a result (nil sends null).
func (r *Request) Reply(result any) error {
	raw, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("stdiorpc: reply to %s: %w", r.Method, err)
	}
	return r.reply(wireMessage{ID: r.ID, Result: raw})
}

// ReplyError answers the request with an error.
func (r *Request) ReplyError(e *Error) error {
	return r.reply(wireMessage{ID: r.ID, Error: e})
}

func (r *Request) reply(m wireMessage) error {
	if !r.replied.CompareAndSwap(false, true) {
		return ErrAlreadyReplied
	}
	return r.peer.write(m)
}

// Peer is one JSON-RPC connection to a CLI. Its methods are safe for
// concurrent use.
type Peer struct {
	r       io.ReadCloser
	w       io.WriteCloser
	h       Handlers
	maxLine int
	log     *zap.Logger
	ordered bool
	readErr error // why reading ended; set before the inbox closes (ordered only)

	writeMu sync.Mutex // one line at a time on the CLI's stdin

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan wireMessage
	cause   error // set once: why the connection ended
	done    chan struct{}

	inbox     *inbox
	closeOnce sync.Once
	readDone  chan struct{}
	dispDone  chan struct{}
}

// New starts a Peer that reads the CLI's messages from r (its stdout) and
// writes to w (its stdin). Close it to stop; it also stops by itself when r
// ends, failing the pending Calls.
func New(r io.ReadCloser, w io.WriteCloser, h Handlers, opts Options) *Peer {
	p := &Peer{
		r: r, w: w, h: h,
		maxLine:  opts.MaxLine,
		log:      opts.Logger,
		ordered:  opts.OrderedReplies,
		nextID:   1,
		pending:  map[int64]chan wireMessage{},
		done:     make(chan struct{}),
		readDone: make(chan struct{}),
		dispDone: make(chan struct{}),
	}
	if p.maxLine <= 0 {
		p.maxLine = DefaultMaxLine
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = DefaultMaxQueued
	}
	p.inbox = newInbox(opts.MaxQueued, p.ordered)
	if p.log == nil {
		p.log = zap.NewNop()
	}
	go p.readLoop()
	go p.dispatch()
	return p
}

// Call sends a request and waits for its reply, decoding a result into
// result (which may be nil). A reply with an error returns *Error. ctx ends
// the wait only; the connection stays up and a late reply is reported to
// OnError as ErrUnknownReply. ctx does not interrupt a write to a CLI that
// stopped reading its stdin; Close does.
func (p *Peer) Call(ctx context.Context, method string, params, result any) error {
	pc, err := p.Send(method, params)
	if err != nil {
		return err
	}
	return pc.Wait(ctx, result)
}

// Pending is a request written to the CLI whose reply is awaited with Wait.
type Pending struct {
	p      *Peer
	id     int64
	method string
	ch     chan wireMessage
}

// Send writes a request and returns once it is written, for a caller that
// must know the CLI has it before waiting for the reply (a turn's prompt).
func (p *Peer) Send(method string, params any) (*Pending, error) {
	rawParams, err := marshalParams(params)
	if err != nil {
		return nil, fmt.Errorf("stdiorpc: %s params: %w", method, err)
	}
	ch := make(chan wireMessage, 1)
	p.mu.Lock()
	if p.cause != nil {
		err := p.closedErr()
		p.mu.Unlock()
		return nil, err
	}
	id := p.nextID
	p.nextID++
	p.pending[id] = ch
	p.mu.Unlock()

	rawID := json.RawMessage(strconv.FormatInt(id, 10))
	if err := p.write(wireMessage{ID: rawID, Method: method, Params: rawParams}); err != nil {
		p.forget(id)
		return nil, err
	}
	return &Pending{p: p, id: id, method: method, ch: ch}, nil
}

// Wait waits for the reply, as Call does. Call it once.
func (pc *Pending) Wait(ctx context.Context, result any) error {
	p := pc.p
	// A handler waiting here would otherwise wait for a reader stopped by
	// the full inbox it is handling (see inbox).
	p.inbox.blockedCall(1)
	defer p.inbox.blockedCall(-1)
	select {
	case <-ctx.Done():
		p.forget(pc.id)
		return ctx.Err()
	case m, ok := <-pc.ch:
		if !ok {
			p.mu.Lock()
			defer p.mu.Unlock()
			return p.closedErr()
		}
		if m.Error != nil {
			return m.Error
		}
		if result == nil || len(m.Result) == 0 {
			return nil
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("stdiorpc: %s result: %w", pc.method, err)
		}
		return nil
	}
}

// Notify sends a notification.
func (p *Peer) Notify(method string, params any) error {
	rawParams, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("stdiorpc: %s params: %w", method, err)
	}
	return p.write(wireMessage{Method: method, Params: rawParams})
}

// Discard stops handing the CLI's messages to the handlers: those queued
// and every later one are dropped unread (replies too, so pending Calls
// fail only when the connection ends), and the reader keeps draining
// stdout. For a CLI being stopped: its flood must neither be handled nor
// hold up the stop.
func (p *Peer) Discard() { p.inbox.drop() }

// Queue reports the bytes read from the CLI and not yet handled.
func (p *Peer) Queue() QueueStats { return p.inbox.stats() }

// Done is closed once the connection is over (stdout ended or Close).
func (p *Peer) Done() <-chan struct{} { return p.done }

// Err is nil while the connection is up, then an error wrapping ErrClosed
// and why it ended (io.EOF when the CLI closed its stdout).
func (p *Peer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cause == nil {
		return nil
	}
	return p.closedErr()
}

// Close ends the connection: it closes the CLI's stdin (the CLIs exit on
// EOF) and its stdout, fails pending Calls, and returns once the handlers
// have seen every message read before (none after Discard) and both
// goroutines have ended. Safe
// to call more than once; do not call it from a handler (it waits for them).
func (p *Peer) Close() error {
	var err error
	p.closeOnce.Do(func() {
		p.end(errLocalClose)
		// Not under writeMu: closing a pipe unblocks a Write stuck on a CLI
		// that stopped reading.
		err = p.w.Close()
		if rerr := p.r.Close(); err == nil {
			err = rerr
		}
	})
	<-p.readDone
	<-p.dispDone
	return err
}

// closedErr needs p.mu held and p.cause set.
func (p *Peer) closedErr() error {
	return fmt.Errorf("%w: %w", ErrClosed, p.cause)
}

// end records the first cause and fails every pending Call.
func (p *Peer) end(cause error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cause != nil {
		return
	}
	p.cause = cause
	for id, ch := range p.pending {
		close(ch)
		delete(p.pending, id)
	}
	close(p.done)
}

func (p *Peer) forget(id int64) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

func (p *Peer) write(m wireMessage) error {
	m.JSONRPC = "2.0"
	line, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("stdiorpc: encode %s: %w", m.Method, err)
	}
	line = append(line, '\n')
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.mu.Lock()
	if p.cause != nil {
		err := p.closedErr()
		p.mu.Unlock()
		return err
	}
	p.mu.Unlock()
	if _, err := p.w.Write(line); err != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.cause != nil {
			return p.closedErr()
		}
		return fmt.Errorf("stdiorpc: write %s: %w", m.Method, err)
	}
	return nil
}

func (p *Peer) report(err error) {
	if p.h.OnError != nil {
		p.h.OnError(err)
		return
	}
	p.log.Warn("stdiorpc: skipped a line", zap.Error(err))
}
