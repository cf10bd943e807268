package server

import (
	"context"
	"encoding/json"

	"github.com/cdevd/cdevd/rpc"
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
	return s.initializeResult(ctx, c.conn.ID()), nil
}

// initializeResult is the whole capabilities answer, in one literal, built
// from the registry so that what is advertised is what is registered.
func (s *Server) initializeResult(ctx context.Context, clientID string) rpc.InitializeResult {
	info := rpc.ServerInfo{Name: "cdevd", Version: s.cfg.Version}
	return rpc.InitializeResult{
		ProtocolVersion: rpc.ProtocolVersion,
		ServerInfo:      info,
		ServerInfoSnake: info,
		ClientID:        clientID,
		Epoch:           s.engine.Epoch(),
		Capabilities: rpc.ServerCapabilities{
			SupportedAgents: s.reg.IDs(),
			RuntimeRegistry: s.reg.Snapshot(ctx),
		},
	}
}
