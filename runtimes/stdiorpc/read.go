package stdiorpc

// The read side: lines read from the CLI's stdout, replies handed to their
// Calls, requests and notifications queued and dispatched in order.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// readLoop reads lines until stdout ends; only a read error ends it.
func (p *Peer) readLoop() {
	defer close(p.readDone)
	br := bufio.NewReaderSize(p.r, readBuffer)
	var buf []byte
	for {
		buf = buf[:0]
		size, err := p.readLine(br, &buf)
		switch {
		case p.inbox.dropping():
			// Discarded: not even decoded.
		case size > p.maxLine:
			p.report(fmt.Errorf("%w: %d bytes (max %d), skipped", ErrLineTooLong, size, p.maxLine))
		default:
			line := bytes.TrimSpace(buf)
			if len(line) == 0 {
				break
			}
			p.handleLine(line)
		}
		if err != nil {
			if p.ordered {
				// Replies still queued are delivered first; dispatch
				// fails what is left once it has drained them.
				p.readErr = err
			} else {
				p.end(err)
			}
			p.inbox.close()
			return
		}
	}
}

// readLine appends one line (without its newline) to buf while it fits the
// maximum, and returns the line's full size; a line over the maximum is
// consumed without being kept.
func (p *Peer) readLine(br *bufio.Reader, buf *[]byte) (int, error) {
	size := 0
	for {
		frag, err := br.ReadSlice('\n')
		frag = bytes.TrimSuffix(frag, []byte("\n"))
		size += len(frag)
		if size <= p.maxLine {
			*buf = append(*buf, frag...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return size, err
	}
}

func (p *Peer) handleLine(line []byte) {
	m, err := decode(line)
	if err != nil {
		p.report(fmt.Errorf("%w: %v: %s", ErrMalformed, err, excerpt(line)))
		return
	}
	// Each message holds the room of its line until handled.
	switch {
	case m.Method != "" && m.ID != nil:
		p.inbox.push(&Request{ID: m.ID, Method: m.Method, Params: m.Params, peer: p}, len(line))
	case m.Method != "":
		p.inbox.push(notification{method: m.Method, params: m.Params}, len(line))
	case p.ordered:
		p.inbox.push(m, len(line))
	default:
		p.deliverReply(m)
	}
}

func (p *Peer) deliverReply(m wireMessage) {
	id, ok := replyID(m.ID)
	p.mu.Lock()
	ch := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if !ok || ch == nil {
		p.report(fmt.Errorf("%w: id %s", ErrUnknownReply, excerpt(m.ID)))
		return
	}
	ch <- m
}

// replyID reads our own ids back; a CLI that turned them into strings is
// forgiven.
func replyID(raw json.RawMessage) (int64, bool) {
	s := string(raw)
	if unq, err := strconv.Unquote(s); err == nil {
		s = unq
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}

// dispatch hands queued messages to the handlers in order, then, once the
// reader has stopped, drains what is left and returns.
func (p *Peer) dispatch() {
	defer close(p.dispDone)
	for {
		batch, open := p.inbox.take()
		for _, q := range batch {
			if p.inbox.dropping() {
				break
			}
			switch it := q.msg.(type) {
			case *Request:
				if p.h.OnRequest != nil {
					p.h.OnRequest(it)
				} else {
					// Nobody can answer: say so rather than leave the CLI waiting.
					_ = it.ReplyError(&Error{Code: -32601, Message: "method not found: " + it.Method})
				}
			case notification:
				if p.h.OnNotification != nil {
					p.h.OnNotification(it.method, it.params)
				}
			case wireMessage:
				p.deliverReply(it)
			}
			p.inbox.handled(q.size)
		}
		if !open && len(batch) == 0 {
			if p.ordered {
				p.end(p.readErr)
			}
			return
		}
	}
}
