// Package server implements cdevd's JSON-RPC methods on top of the
// transport: one file per method family (lifecycle, workspaces, sessions,
// workspace session data), each contributing its handlers to one dispatch
// table (methods.go), and one value per
// connection that holds what the protocol makes per-connection
// (initialization, opted-out notifications, watched sessions).
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cdevd/cdevd/attachments"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/presence"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/sessions"
	"github.com/cdevd/cdevd/transport"
	"github.com/cdevd/cdevd/usage"
	"github.com/cdevd/cdevd/workspaces"
	"github.com/cdevd/cdevd/workspaces/discover"
	"github.com/cdevd/cdevd/workspaces/gitops"
	"github.com/cdevd/cdevd/workspaces/search"
)

// Config wires the server to the daemon's parts.
type Config struct {
	Version    string // cdevd's version, for serverInfo
	ServerID   string // this cdevd's stable id, for serverInfo
	Hostname   string // the machine's name, for serverInfo
	Registry   *registry.Registry
	Workspaces *workspaces.Store
	Engine     *sessions.Engine
	Search     *search.Service   // repository/search and files/list's git flags
	Presence   *presence.Tracker // who views which session; nil: a new one
	Finder     *discover.Finder  // workspace/discover's scans and cache
	// Auth holds the paired devices, for the device family.
	Auth *auth.Service
	// Discover is the OpenRPC document returned by rpc.discover.
	Discover json.RawMessage
	// Notify serves the notify/* methods; nil turns them off.
	Notify Notifications
	// Limits answers usage/limits; nil knows none.
	Limits *usage.Limits
	Logger *zap.Logger
	// Git runs the git/* methods; nil is the user's git with the defaults.
	Git *gitops.Git
	// Watcher watches subscribed workspaces' folders for their events;
	// nil is the process's shared inotify instance.
	Watcher *fswatch.Watcher
	// Attachments keeps the images and files of turns; nil refuses every
	// attachment.
	Attachments *attachments.Store
}

// Server is the transport.Handler of cdevd.
type Server struct {
	cfg      Config
	log      *zap.Logger
	reg      *registry.Registry
	ws       *workspaces.Store
	engine   *sessions.Engine
	search   *search.Service
	presence *presence.Tracker
	discover *discover.Finder
	git      *gitops.Git
	started  time.Time

	methods map[string]method // the dispatch table, built once by New

	mu      sync.Mutex
	clients map[*transport.Conn]*client

	// regWarm is set once a snapshot has detected every runtime: from then
	// on initialize never waits, and caps holds its encoded capabilities.
	regWarm atomic.Bool
	caps    atomic.Pointer[encodedCaps]
}

// New creates the Server.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Git == nil {
		cfg.Git = gitops.New(gitops.Config{})
	}
	s := &Server{cfg: cfg, log: cfg.Logger, reg: cfg.Registry, ws: cfg.Workspaces,
		engine: cfg.Engine, search: cfg.Search, presence: cfg.Presence, discover: cfg.Finder, git: cfg.Git, started: time.Now(), clients: map[*transport.Conn]*client{}}
	if s.presence == nil {
		s.presence = presence.New()
	}
	s.methods = s.table()
	if s.engine != nil {
		s.engine.SetWorkspaceWatch(s.watchWorkspace)
	}
	return s
}

// client is one connection's protocol state. It is the sessions.Watcher
// through which the connection receives events.
type client struct {
	conn *transport.Conn

	mu          sync.Mutex
	initialized bool
	info        rpc.ClientInfo
	viewing     viewing // the session this connection focused (client/session/focus)
	// workspace is the workspace this connection last subscribed to or
	// activated a session in: repository/search, which the iOS app sends
	// without a workspace_id, searches it.
	workspace string
}

// setWorkspace records the workspace c last turned to.
func (c *client) setWorkspace(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.workspace = id
}

// lastWorkspace is the workspace c last turned to, "" if none.
func (c *client) lastWorkspace() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.workspace
}

// ClientID names the connection after its device (device:connection), so
// that resolved_by tells users which device answered; it holds no secret.
func (c *client) ClientID() string { return c.conn.Principal().DeviceID + ":" + c.conn.ID() }

func (c *client) Deliver(ev *sessions.Event) { c.conn.SendEvent(ev.Method(), ev.Frame) }

func (c *client) DeliverWait(ctx context.Context, ev *sessions.Event) error {
	return c.conn.SendEventWait(ctx, ev.Method(), ev.Frame)
}

func (c *client) Cut(reason string) { c.conn.Close(websocket.CloseTryAgainLater, reason) }

func (c *client) isInitialized() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initialized
}

// Open implements transport.Handler.
func (s *Server) Open(conn *transport.Conn) {
	s.mu.Lock()
	s.clients[conn] = &client{conn: conn}
	s.mu.Unlock()
}

// Close implements transport.Handler: the client stops watching everything.
// Its sessions keep running.
func (s *Server) Close(conn *transport.Conn) {
	s.mu.Lock()
	c := s.clients[conn]
	delete(s.clients, conn)
	s.mu.Unlock()
	if c != nil {
		s.engine.Detach(c)
		s.leavePresence(c)
	}
}

func (s *Server) client(conn *transport.Conn) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clients[conn]
}

// Inline implements transport.Inliner: the table's lookups, and
// initialize once it can no longer wait for a runtime's first detection.
func (s *Server) Inline(_ *transport.Conn, name string) bool {
	if name == rpc.MethodInitialize {
		return s.regWarm.Load()
	}
	return s.methods[name].inline
}

// Handle implements transport.Handler: one look-up in the method table.
func (s *Server) Handle(ctx context.Context, conn *transport.Conn, name string, params json.RawMessage) (any, error) {
	c := s.client(conn)
	if c == nil {
		return nil, errors.New("connection is closing")
	}
	m, ok := s.methods[name]
	if !ok {
		return nil, methodNotFound(name)
	}
	if !m.beforeInit && !c.isInitialized() {
		return nil, rpc.NotInitialized
	}
	if m.access == acts {
		if p := conn.Principal(); !p.CanAct() {
			return nil, rpc.Forbidden(name, string(p.Scope))
		}
	}
	return m.handle(ctx, c, params)
}

// decode unmarshals by-name params, turning type errors into InvalidParams
// that name the field.
func decode(raw json.RawMessage, v any) error {
	trimmed := strings.TrimSpace(string(raw))
	if trimmed == "" || trimmed == "null" {
		return nil
	}
	if trimmed[0] != '{' {
		return rpc.InvalidParams("params", "must be an object (params are passed by name)")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "params"
			}
			return rpc.InvalidParams(field, fmt.Sprintf("expected %s, got %s", te.Type, te.Value))
		}
		return rpc.InvalidParams("params", err.Error())
	}
	return nil
}

// oneOf checks an enum-valued param.
func oneOf[T ~string](field string, v T, allowed ...T) error {
	if v == "" {
		return nil
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return rpc.InvalidParams(field, fmt.Sprintf("%q is not one of %v", v, allowed))
}

func required(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return rpc.InvalidParams(field, "required")
	}
	return nil
}
