package server

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

func (s *Server) initialize(ctx context.Context, c *client, raw json.RawMessage) (any, error) {
	var p rpc.InitializeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.initialized {
		c.mu.Unlock()
		return nil, rpc.Errorf(rpc.CodeInvalidRequest, nil, "already initialized")
	}
	c.initialized = true
	switch {
	case p.ClientInfo != nil:
		c.info = *p.ClientInfo
	case p.ClientInfoSnake != nil:
		c.info = *p.ClientInfoSnake
	}
	c.mu.Unlock()
	if p.Capabilities != nil {
		c.conn.SetOptOut(p.Capabilities.OptOutNotificationMethods)
	}
	return initializeReply{s.initializeResult(c.conn.ID()), s.capabilities(ctx)}, nil
}

// initializeResult is the whole answer but the capabilities, in one literal.
func (s *Server) initializeResult(clientID string) rpc.InitializeResult {
	info := rpc.ServerInfo{Name: "cdevd", Version: s.cfg.Version}
	return rpc.InitializeResult{
		ProtocolVersion: rpc.ProtocolVersion,
		ServerInfo:      info,
		ServerInfoSnake: info,
		ClientID:        clientID,
		Epoch:           s.engine.Epoch(),
	}
}

// initializeReply encodes as rpc.InitializeResult, with its capabilities
// encoded already: the field shadows the embedded one of the same name.
type initializeReply struct {
	rpc.InitializeResult
	Capabilities json.RawMessage `json:"capabilities"`
}

// encodedCaps is the capabilities answer, encoded, for the runtimes'
// statuses it was built from.
type encodedCaps struct {
	statuses []registry.Status
	json     json.RawMessage
}

// capabilities returns the encoded capabilities, built from the registry
// so that what is advertised is what is registered. Encoding the registry
// was most of initialize's work; it is done again only when a runtime's
// status changed, and generatedAt says when that was.
func (s *Server) capabilities(ctx context.Context) json.RawMessage {
	if !s.regWarm.Load() {
		// Until every runtime has been detected once, a snapshot may wait
		// for detections, which it runs concurrently.
		caps := s.encodeCaps(s.reg.Snapshot(ctx), nil)
		s.regWarm.Store(true)
		return caps.json
	}
	ids := s.reg.IDs()
	statuses := make([]registry.Status, len(ids))
	for i, id := range ids {
		statuses[i] = s.reg.Status(ctx, id) // known now: never waits
	}
	if c := s.caps.Load(); c != nil && slices.Equal(c.statuses, statuses) {
		return c.json
	}
	adapters := make([]runtimes.Adapter, len(ids))
	for i, id := range ids {
		adapters[i], _ = s.reg.Adapter(id)
	}
	return s.encodeCaps(registry.Build(adapters, statuses, time.Now()), statuses).json
}

// encodeCaps encodes reg and, with the statuses it shows, caches it.
func (s *Server) encodeCaps(reg rpc.RuntimeRegistry, statuses []registry.Status) *encodedCaps {
	// Without HTML escaping, like every other reply (see transport.marshal).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rpc.ServerCapabilities{SupportedAgents: s.reg.IDs(), RuntimeRegistry: reg}); err != nil {
		panic(err) // strings, bools and slices of them cannot fail
	}
	c := &encodedCaps{statuses: statuses, json: bytes.TrimSuffix(buf.Bytes(), []byte("\n"))}
	if statuses != nil {
		s.caps.Store(c)
	}
	return c
}
