package contracttests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cdevd/cdevd/openrpc"
	"github.com/cdevd/cdevd/rpc"
)

// anyMethodCodes are the errors any method may answer with, whether or not
// the document lists them for that method.
var anyMethodCodes = []int64{rpc.CodeParseError, rpc.CodeInvalidRequest, rpc.CodeMethodNotFound,
	rpc.CodeInvalidParams, rpc.CodeInternalError, rpc.CodeOverloaded, rpc.CodeNotInitialized}

// contract is openrpc.json compiled once: its validator and, per method,
// the error codes it documents.
type contract struct {
	v      *openrpc.Validator
	errors map[string][]int64
}

var loadContract = sync.OnceValues(func() (*contract, error) {
	v, err := openrpc.NewValidator(openrpc.Document)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Methods []struct {
			Name   string `json:"name"`
			Errors []struct {
				Ref string `json:"$ref"`
			} `json:"errors"`
		} `json:"methods"`
		Components struct {
			Errors map[string]struct {
				Code int64 `json:"code"`
			} `json:"errors"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openrpc.Document, &doc); err != nil {
		return nil, err
	}
	c := &contract{v: v, errors: map[string][]int64{}}
	for _, m := range doc.Methods {
		for _, e := range m.Errors {
			name := strings.TrimPrefix(e.Ref, "#/components/errors/")
			ce, ok := doc.Components.Errors[name]
			if !ok {
				return nil, fmt.Errorf("openrpc.json: %s refers to an undefined error %s", m.Name, e.Ref)
			}
			c.errors[m.Name] = append(c.errors[m.Name], ce.Code)
		}
	}
	return c, nil
})

// checkError reports an error response the document does not allow.
func (c *contract) checkError(method string, e *rpc.Error) error {
	if e.Message == "" {
		return fmt.Errorf("%s: error %d has no message", method, e.Code)
	}
	if !slices.Contains(append(anyMethodCodes, c.errors[method]...), e.Code) {
		return fmt.Errorf("%s: error code %d is not documented for this method (%s)", method, e.Code, e.Message)
	}
	if e.Data == nil {
		return nil
	}
	data, err := json.Marshal(e.Data)
	if err != nil {
		return err
	}
	if err := c.v.ValidateError(e.Code, data); err != nil {
		return fmt.Errorf("%s: %w (%s)", method, err, e.Message)
	}
	return nil
}

// checkNotification validates a notification the server sent.
func (c *contract) checkNotification(method string, params json.RawMessage) error {
	if !strings.HasPrefix(method, rpc.EventPrefix) {
		return fmt.Errorf("server sent %s, which is not an event/ notification", method)
	}
	return c.v.ValidateNotification(method, params)
}

// violations collects what a connection received that breaks the contract.
// It is filled from the reading goroutine and reported on the test's own
// goroutine (the next Call or Await, or cleanup), where failing is allowed.
type violations struct {
	t    testing.TB
	mu   sync.Mutex
	errs []error
}

func (v *violations) add(err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.errs = append(v.errs, err)
}

func (v *violations) report() {
	v.mu.Lock()
	errs := v.errs
	v.errs = nil
	v.mu.Unlock()
	for _, err := range errs {
		v.t.Errorf("contract violation: %v", err)
	}
}

// frames checks the frames of one connection, as they cross the wire,
// against the contract. It remembers the method of each request sent, so
// that its reply can be validated, and the notifications among what
// arrives.
type frames struct {
	contract *contract
	bad      *violations
	// client is set for a client.Client's connection: its request ids are
	// unique, so each is forgotten after its reply, and what passes is
	// recorded in the wire corpus. A raw connection may reuse ids on
	// purpose and sends frames no client would: it records nothing.
	client bool

	mu   sync.Mutex
	sent map[string]sentRequest // by id, as compact JSON
}

type sentRequest struct {
	method string
	params json.RawMessage
}

func newFrames(ct *contract, bad *violations, client bool) *frames {
	return &frames{contract: ct, bad: bad, client: client, sent: map[string]sentRequest{}}
}

func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// onSent remembers the requests in a frame sent (one, or a batch).
func (f *frames) onSent(frame []byte) {
	var elems []json.RawMessage
	if json.Unmarshal(frame, &elems) != nil {
		elems = []json.RawMessage{frame}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range elems {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(e, &m) == nil && m.ID != nil && m.Method != "" {
			f.sent[idKey(m.ID)] = sentRequest{m.Method, m.Params}
		}
	}
}

// request returns (and for a client forgets) the request a reply answers.
func (f *frames) request(id json.RawMessage) (sentRequest, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := idKey(id)
	req, ok := f.sent[k]
	if ok && f.client {
		delete(f.sent, k)
	}
	return req, ok
}

// onReceived validates a frame received (one message, or a batch) and
// returns whether it holds replies and the notifications in it.
func (f *frames) onReceived(data []byte) (replies bool, notes []Notification) {
	var elems []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		if err := json.Unmarshal(data, &elems); err != nil || len(elems) == 0 {
			f.bad.add(fmt.Errorf("server sent a malformed batch: %s", data))
			return true, nil
		}
	} else {
		elems = []json.RawMessage{data}
	}
	for _, e := range elems {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
			Result  json.RawMessage `json:"result"`
			Error   *rpc.Error      `json:"error"`
		}
		if err := json.Unmarshal(e, &m); err != nil || m.JSONRPC != "2.0" {
			f.bad.add(fmt.Errorf("server sent something that is not JSON-RPC 2.0: %s", e))
			continue
		}
		if m.Method != "" {
			if m.ID != nil && string(m.ID) != "null" {
				f.bad.add(fmt.Errorf("server sent a request (%s) to the client", m.Method))
				continue
			}
			if err := f.contract.checkNotification(m.Method, m.Params); err != nil {
				f.bad.add(fmt.Errorf("%s: %w", m.Method, err))
			} else if f.client {
				recordWire("notification", m.Method, 0, map[string]any{"method": m.Method, "params": m.Params})
			}
			notes = append(notes, Notification{Method: m.Method, Params: m.Params})
			continue
		}
		replies = true
		if m.ID == nil {
			f.bad.add(fmt.Errorf("a response has no id: %s", e))
			continue
		}
		req, known := f.request(m.ID)
		switch {
		case m.Error != nil && m.Result != nil:
			f.bad.add(fmt.Errorf("a response has both result and error: %s", e))
		case m.Error != nil:
			var err error
			if known {
				err = f.contract.checkError(req.method, m.Error)
			} else if m.Error.Message == "" {
				err = fmt.Errorf("error %d has no message", m.Error.Code)
			}
			if err != nil {
				f.bad.add(err)
			} else if known && f.client {
				recordRequest(req)
				recordWire("error", req.method, m.Error.Code, map[string]any{"id": 1, "error": m.Error})
			}
		case m.Result == nil:
			f.bad.add(fmt.Errorf("a response has neither result nor error: %s", e))
		case known:
			if err := f.contract.v.ValidateResult(req.method, m.Result); err != nil {
				f.bad.add(err)
			} else if f.client {
				recordRequest(req)
				recordWire("result", req.method, 0, map[string]any{"id": 1, "result": m.Result})
			}
		}
	}
	return replies, notes
}

// recordRequest keeps a request whose reply passed as its method's
// example; ids become 1 so that the corpus does not change with them.
func recordRequest(req sentRequest) {
	frame := map[string]any{"id": 1, "method": req.method}
	if req.params != nil { // sent without params: so recorded, not as null
		frame["params"] = req.params
	}
	recordWire("request", req.method, 0, frame)
}
