package server

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/transport"
)

func (s *Server) lifecycleMethods() family {
	initialize := read(withClient(s.initialize))
	initialize.beforeInit = true
	return family{
		rpc.MethodInitialize:  read(initialize),
		rpc.MethodInitialized: {beforeInit: true, access: reads, handle: func(context.Context, *client, json.RawMessage) (any, error) { return nil, nil }},
		rpc.MethodDiscover: read(lookup(plain(func(context.Context, rpc.DiscoverParams) (json.RawMessage, error) {
			return s.cfg.Discover, nil
		}))),
	}
}

func (s *Server) initialize(ctx context.Context, c *client, p rpc.InitializeParams) (transport.Encoded, error) {
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
	return s.initializeResult(ctx, c.ClientID(), c.conn.Principal()), nil
}

// initializeResult is the whole answer, in one literal, with the
// capabilities built from the registry so that what is advertised is what
// is registered. Encoding the registry was most of initialize's work: the
// answer is encoded again only when a runtime's status changed (and
// generatedAt says when that was); each connection splices in its id and
// its device (after clientId's value).
func (s *Server) initializeResult(ctx context.Context, clientID string, p auth.Principal) transport.Encoded {
	caps := s.capabilities(ctx)
	id, _ := json.Marshal(clientID)                                                              // a string
	dev, _ := json.Marshal(rpc.DeviceInfo{ID: p.DeviceID, Name: p.Name, Scope: string(p.Scope)}) // strings
	id = append(append(id, `,"device":`...), dev...)
	enc := caps.json
	msg := make([]byte, 0, len(enc)+len(id))
	msg = append(append(msg, enc[:caps.idAt]...), id...)
	return append(msg, enc[caps.idAt:]...)
}

// encodedCaps is the initialize result, encoded without its clientId's
// value (which goes at idAt), for the runtimes' statuses it was built from.
type encodedCaps struct {
	statuses []registry.Status
	json     []byte
	idAt     int
}

// clientIDField is where a result encoded with an empty clientId has room
// for one. It cannot occur inside a string value, where quotes are escaped,
// and clientId is encoded before the registry.
const clientIDField = `"clientId":`

// emptyIDAndDevice is how the per-connection members, empty, are encoded
// after clientIDField; initializeResult puts them back filled in.
const emptyIDAndDevice = `"","device":{"id":"","name":"","scope":""}`

// capabilities returns the encoded result for the registry's state.
func (s *Server) capabilities(ctx context.Context) *encodedCaps {
	if !s.regWarm.Load() {
		// Until every runtime has been detected once, a snapshot may wait
		// for detections, which it runs concurrently.
		caps := s.encodeCaps(s.reg.Snapshot(ctx), nil)
		s.regWarm.Store(true)
		return caps
	}
	ids := s.reg.IDs()
	statuses := make([]registry.Status, len(ids))
	for i, id := range ids {
		statuses[i] = s.reg.Status(ctx, id) // known now: never waits
	}
	if c := s.caps.Load(); c != nil && slices.Equal(c.statuses, statuses) {
		return c
	}
	adapters := make([]runtimes.Adapter, len(ids))
	for i, id := range ids {
		adapters[i], _ = s.reg.Adapter(id)
	}
	return s.encodeCaps(registry.Build(adapters, statuses, time.Now()), statuses)
}

// encodeCaps encodes the result for reg and, given the statuses it shows,
// caches it.
func (s *Server) encodeCaps(reg rpc.RuntimeRegistry, statuses []registry.Status) *encodedCaps {
	info := rpc.ServerInfo{Name: "cdevd", Version: s.cfg.Version, ID: s.cfg.ServerID, Hostname: s.cfg.Hostname}
	res := rpc.InitializeResult{
		ProtocolVersion: rpc.ProtocolVersion,
		ServerInfo:      info,
		ServerInfoSnake: info,
		Epoch:           s.engine.Epoch(),
		Capabilities:    rpc.ServerCapabilities{SupportedAgents: s.reg.IDs(), RuntimeRegistry: reg, Features: s.features()},
	}
	// Without HTML escaping, like every other reply (see transport).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		panic(err) // strings, bools and slices of them cannot fail
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	at := bytes.Index(out, []byte(clientIDField+emptyIDAndDevice))
	out = append(out[:at+len(clientIDField)], out[at+len(clientIDField)+len(emptyIDAndDevice):]...)
	c := &encodedCaps{statuses: statuses, json: out, idAt: at + len(clientIDField)}
	if statuses != nil {
		s.caps.Store(c)
	}
	return c
}

// features lists the workspace features whose every method is in the
// dispatch table.
func (s *Server) features() []string {
	out := []string{}
	for _, f := range rpc.Features {
		if !slices.ContainsFunc(f.Methods, func(m string) bool { _, ok := s.methods[m]; return !ok }) {
			out = append(out, f.Name)
		}
	}
	return out
}
