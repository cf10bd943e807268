package transport

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// Defaults for the zero values of Config.
const (
	DefaultMaxFrameBytes     = 16 << 20
	DefaultSendQueue         = 1024
	DefaultMaxInflight       = 32
	DefaultPingInterval      = 20 * time.Second
	DefaultHeartbeatInterval = 25 * time.Second // the iOS client gives up after 45 s of silence
	DefaultWriteTimeout      = 10 * time.Second
)

// Subprotocol is the WebSocket subprotocol cdevd speaks. A browser that
// sends its token as a bearer subprotocol should offer this one too, so the
// server selects it rather than echoing the token back.
const Subprotocol = "cdevd"

// bearerPrefix starts the subprotocol that carries the token, for browsers,
// which cannot set an Authorization header on a WebSocket.
const bearerPrefix = "cdevd.bearer."

// Config configures a Server. Zero values take the defaults above.
type Config struct {
	Token             string               // required (an empty token refuses everyone); compared in constant time
	AllowOrigins      []string             // exact Origin values allowed (e.g. "https://app.example"); none by default
	AllowHosts        []string             // Host names allowed besides loopback IPs and "localhost" (any port)
	MaxFrameBytes     int64                // a bigger message closes the socket with 1009
	SendQueue         int                  // per-connection outbound queue (messages); overflow closes with 1013
	MaxInflight       int                  // per-connection concurrent requests; beyond it: rpc.Overloaded
	PingInterval      time.Duration        // WebSocket ping; a peer silent for twice this is dropped
	HeartbeatInterval time.Duration        // event/heartbeat notification; keep it under 30 s
	WriteTimeout      time.Duration        // bound on writing one frame
	MaxReplyBytes     int64                // bound on the replies of one batch together (default MaxFrameBytes)
	Ready             func() bool          // GET /readyz: 200 when true, 503 otherwise (nil = ready)
	Registry          *prometheus.Registry // metrics are registered here and served at /metrics (nil = new one)
	Logger            *zap.Logger
}

func (cfg Config) withDefaults() Config {
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if cfg.SendQueue <= 0 {
		cfg.SendQueue = DefaultSendQueue
	}
	if cfg.MaxInflight <= 0 {
		cfg.MaxInflight = DefaultMaxInflight
	}
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = DefaultPingInterval
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if cfg.MaxReplyBytes <= 0 {
		cfg.MaxReplyBytes = cfg.MaxFrameBytes
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	return cfg
}

// Handler implements the JSON-RPC methods. Handle runs concurrently, in its
// own goroutine per request; its ctx ends when the connection does.
type Handler interface {
	// Open is called after the upgrade, before any request is handled.
	Open(c *Conn)
	// Handle answers one request or notification. A nil result is sent as
	// null; an error is sent through rpc.AsError, so a wrapped *rpc.Error
	// keeps its code and data. Notifications get no reply either way.
	Handle(ctx context.Context, c *Conn, method string, params json.RawMessage) (result any, err error)
	// Close is called after the connection ended and every Handle returned.
	Close(c *Conn)
}

// Server serves the WebSocket endpoint and the probes. It is an
// http.Handler; run it with any http.Server.
type Server struct {
	cfg       Config
	h         Handler
	log       *zap.Logger
	metrics   *metrics
	mux       *http.ServeMux
	upgrader  websocket.Upgrader
	tokenHash [sha256.Size]byte
	started   time.Time

	mu       sync.Mutex
	conns    map[*Conn]struct{}
	shutdown bool
	// wg counts connections until their Handler.Close has run.
	wg sync.WaitGroup
}

// New returns a Server that passes requests to h.
func New(cfg Config, h Handler) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:       cfg,
		h:         h,
		log:       cfg.Logger,
		metrics:   newMetrics(cfg.Registry),
		tokenHash: sha256.Sum256([]byte(cfg.Token)),
		started:   time.Now(),
		conns:     make(map[*Conn]struct{}),
		upgrader: websocket.Upgrader{
			// Origin is checked before the upgrade, against AllowOrigins.
			CheckOrigin: func(*http.Request) bool { return true },
		},
	}
	if cfg.Token == "" {
		s.log.Error("no token configured: every WebSocket and /metrics request will be refused")
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /ws", s.serveWS)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	s.mux.HandleFunc("GET /readyz", s.serveReady)
	s.mux.Handle("GET /metrics", s.requireToken(promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{})))
	return s
}

// ServeHTTP routes /ws, /healthz, /readyz and /metrics; anything else is 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// Conns returns the number of open connections.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Shutdown refuses new upgrades (503), closes every connection with 1001
// (which cancels their handlers' contexts), and waits until every handler
// and connection goroutine has ended. If ctx ends first it returns
// ctx.Err(); handlers that ignore cancellation are then still running.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	conns := make([]*Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	for _, c := range conns {
		c.Close(websocket.CloseGoingAway, "server shutting down")
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) serveReady(w http.ResponseWriter, _ *http.Request) {
	if s.cfg.Ready != nil && !s.cfg.Ready() {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}

func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := headerToken(r)
		if !ok || !s.validToken(tok) {
			http.Error(w, http.StatusText(http.StatusUnauthorized), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		s.refuse(w, r, "host", http.StatusForbidden)
		return
	}
	if !s.originAllowed(r) {
		s.refuse(w, r, "origin", http.StatusForbidden)
		return
	}
	tok, bearerProto := credential(r)
	if !s.validToken(tok) {
		s.refuse(w, r, "auth", http.StatusUnauthorized)
		return
	}

	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	var hdr http.Header
	if p := selectProtocol(r, bearerProto); p != "" {
		hdr = http.Header{"Sec-Websocket-Protocol": {p}}
	}
	ws, err := s.upgrader.Upgrade(w, r, hdr)
	if err != nil {
		s.log.Debug("websocket upgrade failed", zap.Error(err)) // Upgrade has replied
		return
	}
	c := newConn(s, ws)
	if !s.add(c) {
		c.Close(websocket.CloseGoingAway, "server shutting down")
	}
	c.serve()
	s.remove(c)
}

// refuse answers a failed upgrade check. The log names the reason, never
// the credentials.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, reason string, status int) {
	s.metrics.rejected.WithLabelValues(reason).Inc()
	s.log.Info("websocket upgrade refused", zap.String("reason", reason), zap.String("remote", r.RemoteAddr))
	http.Error(w, http.StatusText(status), status)
}

// add registers c unless Shutdown has started.
func (s *Server) add(c *Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns[c] = struct{}{}
	return !s.shutdown
}

func (s *Server) remove(c *Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}

// hostAllowed defends against DNS rebinding: a page on evil.example that
// resolves to 127.0.0.1 still sends Host: evil.example.
func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if IsLoopbackHost(host) {
		return true
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return host != "" && slices.ContainsFunc(s.cfg.AllowHosts, func(a string) bool { return strings.EqualFold(a, host) })
}

// IsLoopbackHost reports whether host (without a port) names this machine
// only: "localhost" in any case, or a loopback IP, IPv6 bracketed or not.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAllowed accepts requests without Origin (native clients) and
// browsers on an allowlisted origin.
func (s *Server) originAllowed(r *http.Request) bool {
	for _, o := range r.Header.Values("Origin") {
		if !slices.Contains(s.cfg.AllowOrigins, o) {
			return false
		}
	}
	return true
}

// validToken compares hashes, so the time taken depends on neither the
// token's content nor its length.
func (s *Server) validToken(tok string) bool {
	h := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(h[:], s.tokenHash[:]) == 1 && s.cfg.Token != ""
}

// headerToken returns the token of an "Authorization: Bearer" header.
func headerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// credential returns the token r presents: the Authorization header's if it
// has one, else a bearer subprotocol's (proto is that subprotocol). The
// query string is never looked at: URLs end up in logs and histories.
func credential(r *http.Request) (tok, proto string) {
	if r.Header.Get("Authorization") != "" {
		tok, _ = headerToken(r)
		return tok, ""
	}
	for _, p := range websocket.Subprotocols(r) {
		if t, ok := strings.CutPrefix(p, bearerPrefix); ok {
			return t, p
		}
	}
	return "", ""
}

// selectProtocol picks the subprotocol to answer with. Browsers fail the
// handshake unless the server selects one they offered, so a client that
// authenticated with a bearer subprotocol gets Subprotocol if it offered it,
// else its bearer subprotocol echoed.
func selectProtocol(r *http.Request, bearerProto string) string {
	if slices.Contains(websocket.Subprotocols(r), Subprotocol) {
		return Subprotocol
	}
	return bearerProto
}
