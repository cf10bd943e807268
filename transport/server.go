package transport

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
	"golang.org/x/time/rate"

	"github.com/cdevd/cdevd/auth"
)

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

// Inliner may be implemented by a Handler to have some requests answered
// on the connection's reading goroutine, which reads nothing else
// meanwhile. Inline must report true only for a method that neither
// blocks nor takes long (a lookup under a short lock), so that it never
// delays another request; batches always run as usual.
type Inliner interface {
	Inline(c *Conn, method string) bool
}

// Server serves the WebSocket endpoint and the probes. Run it with Serve,
// which applies the HTTP timeouts and connection caps of Config; it is also
// an http.Handler, for tests that bring their own http.Server.
type Server struct {
	cfg      Config
	h        Handler
	log      *zap.Logger
	metrics  *metrics
	mux      *http.ServeMux
	upgrader websocket.Upgrader
	authn    *auth.Authenticator
	started  time.Time

	// unauthenticated counts requests being served that may not carry
	// the token (see admitRequest).
	unauthenticated atomic.Int64
	// unfinished is the budget of bytes held for messages being received.
	unfinished byteBudget

	refusals   *rate.Limiter
	suppressed atomic.Int64     // refusals not logged since the last line
	now        func() time.Time // the refusal log's clock; tests move it

	mu       sync.Mutex
	conns    map[*Conn]struct{}
	ws       int // WebSockets open or being upgraded, for MaxConns
	shutdown bool
	http     *http.Server // set by Serve
	// wg counts connections until their Handler.Close has run.
	wg sync.WaitGroup
}

// New returns a Server that passes requests to h.
func New(cfg Config, h Handler) *Server {
	cfg = cfg.withDefaults()
	// Both sides alike: a token configured with surrounding spaces must
	// match the same token presented (which is trimmed too).
	cfg.Token = strings.TrimSpace(cfg.Token)
	s := &Server{
		cfg:        cfg,
		h:          h,
		log:        cfg.Logger,
		metrics:    newMetrics(cfg.Registry),
		authn:      cfg.Auth,
		started:    time.Now(),
		conns:      make(map[*Conn]struct{}),
		unfinished: byteBudget{max: cfg.MaxUnfinishedBytes},
		refusals:   rate.NewLimiter(refusalLogRate, refusalLogRate),
		now:        time.Now,
		upgrader: websocket.Upgrader{
			// An idle connection keeps only its read buffer; write
			// buffers are lent, per message, from one pool.
			// The read buffer is the one hijack makes (zero here lets the
			// library take it): the connection looks into it to know
			// whether a message is waiting there (see Conn.readOne).
			WriteBufferPool: &sync.Pool{},
			// Origin is checked before the upgrade, against AllowOrigins.
			CheckOrigin: func(*http.Request) bool { return true },
		},
	}
	if s.authn == nil {
		if cfg.Token == "" {
			s.log.Error("no token configured: every WebSocket and /metrics request will be refused")
		}
		s.authn = auth.New(auth.OwnerToken(cfg.Token))
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /ws", s.serveWS)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	s.mux.HandleFunc("GET /readyz", s.serveReady)
	s.mux.Handle("GET /metrics", s.requireToken(promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{})))
	if cfg.API != nil {
		// By method: "/api/" alone would conflict with the console's "GET /".
		api := s.apiGuard(cfg.API)
		s.mux.Handle("GET /api/", api)
		s.mux.Handle("POST /api/", api)
	}
	if cfg.Console != nil {
		s.mux.Handle("GET /", cfg.Console)
	}
	return s
}

// ServeHTTP routes /ws, /healthz, /readyz and /metrics; anything else goes
// to the console if there is one, else is 404. Whatever answers, the
// response carries the security headers, and a refusal closes the
// connection (see guard.go). The Host check applies to every path: a page
// that rebinds its name to 127.0.0.1 must learn nothing, not even that
// cdevd runs here.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	w = closingWriter{w}
	if !s.hostAllowed(r) {
		s.refuse(w, r, "host", http.StatusForbidden)
		return
	}
	counted, ok := s.admitRequest(r)
	if !ok {
		s.refuse(w, r, "capacity", http.StatusServiceUnavailable)
		return
	}
	if counted {
		defer s.unauthenticated.Add(-1)
	}
	if r.URL.Path != "/ws" && websocket.IsWebSocketUpgrade(r) {
		// Else the console would answer 200 with its page, which a
		// WebSocket client reports as a refusal that says nothing.
		s.refuse(w, r, "path", http.StatusNotFound)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// unauthenticatedShare is how many of slots may serve requests that do
// not carry the token at once. A quarter stays for WebSocket upgrades that
// carry it: requests from anyone who can reach the port, however slow,
// must not hold every slot and lock the clients out.
func unauthenticatedShare(slots int) int64 { return int64(slots - slots/4) }

// admitRequest reports whether r may be served, and whether it was
// counted among the requests without a token (the caller then uncounts
// it when done). Past their share, only an upgrade with the token is
// served; the token is looked at only then, which spares the common case
// a hash.
func (s *Server) admitRequest(r *http.Request) (counted, ok bool) {
	if s.unauthenticated.Add(1) <= unauthenticatedShare(s.cfg.MaxHTTPConns) {
		return true, true
	}
	s.unauthenticated.Add(-1)
	if r.URL.Path != "/ws" {
		return false, false
	}
	_, err := s.authenticate(r)
	return false, err == nil
}

// Serve accepts connections on ln until Shutdown, with the HTTP timeouts
// and connection caps of Config. It returns http.ErrServerClosed after
// Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		// The upgrade clears this deadline too: it bounds responses only.
		WriteTimeout: s.cfg.ResponseTimeout,
		ConnState:    trackConn,
		ErrorLog:     log.New(httpErrorLog{s: s, log: s.log.Named("http")}, "", 0),
	}
	s.mu.Lock()
	if s.shutdown || s.http != nil {
		s.mu.Unlock()
		return http.ErrServerClosed
	}
	s.http = hs
	s.mu.Unlock()
	// The slots are taken by TCP connections, before their handshake:
	// net/http runs the handshake under the request timeouts, so a client
	// that never finishes it holds a slot no longer than a silent one.
	var limited net.Listener = newLimitListener(ln, s.cfg.MaxHTTPConns)
	if s.cfg.TLS != nil {
		limited = tls.NewListener(limited, s.cfg.TLS)
	}
	return hs.Serve(limited)
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
	hs := s.http
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
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if hs != nil {
		// Closes the listener and idle connections, and waits for requests
		// in progress (a WebSocket, hijacked, is not one of them).
		err = errors.Join(err, hs.Shutdown(ctx))
	}
	return err
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
		if _, err := s.authn.AuthenticateHeader(r); err != nil {
			http.Error(w, refusalText(r, "auth", http.StatusUnauthorized), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !s.originAllowed(r) {
		s.refuse(w, r, "origin", http.StatusForbidden)
		return
	}
	principal, err := s.authenticate(r)
	if err != nil {
		s.refuse(w, r, "auth", http.StatusUnauthorized)
		return
	}

	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	if s.ws >= s.cfg.MaxConns {
		s.mu.Unlock()
		s.refuse(w, r, "capacity", http.StatusServiceUnavailable)
		return
	}
	s.ws++
	s.wg.Add(1)
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		s.ws--
		s.mu.Unlock()
		s.wg.Done()
	}

	var hdr http.Header
	if p := selectProtocol(r); p != "" {
		hdr = http.Header{"Sec-Websocket-Protocol": {p}}
	}
	// batchWriter: the writer can then send queued frames with one write;
	// hijacker: the reader can then wait on the socket while idle.
	hj := &hijacker{ResponseWriter: batchWriter{w}}
	ws, err := s.upgrader.Upgrade(hj, r, hdr)
	if err != nil {
		s.log.Debug("websocket upgrade failed", zap.Error(err)) // Upgrade has replied
		release()
		return
	}
	c := newConn(s, ws)
	c.setPrincipal(principal)
	c.setInput(hj.br, ws.NetConn())
	if !s.add(c) {
		c.Close(websocket.CloseGoingAway, "server shutting down")
	}
	// The connection's reading goroutine is its own (see readStart), and
	// net/http's ends here.
	c.serve(func() {
		s.remove(c)
		release()
	})
}

// hijacker hands the upgrader a read buffer of readBufferSize that the
// connection can see, in place of net/http's (4 KiB, which an idle
// connection would keep).
type hijacker struct {
	http.ResponseWriter
	br *bufio.Reader // set by Hijack
}

func (h *hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil || brw.Reader.Buffered() > 0 {
		// The upgrader refuses a client that sent data early; it must
		// see that data to do so.
		return nc, brw, err
	}
	h.br = bufio.NewReaderSize(nc, readBufferSize)
	return nc, bufio.NewReadWriter(h.br, brw.Writer), nil
}

// refuse answers a failed check. The log names the reason, never the
// credentials, and is rate-limited (see refusalLogRate).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, reason string, status int) {
	s.noteRefusal("request refused", reason, zap.String("path", r.URL.Path), zap.String("remote", r.RemoteAddr))
	http.Error(w, refusalText(r, reason, status), status)
}

// noteRefusal counts a refusal and logs it, unless over the rate.
func (s *Server) noteRefusal(msg, reason string, fields ...zap.Field) {
	s.metrics.rejected.WithLabelValues(reason).Inc()
	if !s.refusals.AllowN(s.now(), 1) {
		s.suppressed.Add(1)
		return
	}
	fields = append([]zap.Field{zap.String("reason", reason)}, fields...)
	if n := s.suppressed.Swap(0); n > 0 {
		fields = append(fields, zap.Int64("suppressed", n))
	}
	s.log.Info(msg, fields...)
}

// refusalText is the body of a refusal: the status, and for a refusal the
// client can do something about, what to do. A refused Host learns nothing
// more (the page of a rebound name must not learn that cdevd runs here).
func refusalText(r *http.Request, reason string, status int) string {
	text := http.StatusText(status)
	switch reason {
	case "auth":
		return text + ": no token, or not one of this cdevd's (or an expired or revoked device token). Pair a device " +
			"with `cdevd pair`, or, on the machine cdevd runs on, `cdevd token` prints the owner's token; " +
			`send it as "Authorization: Bearer <token>" (in a browser, as the WebSocket subprotocol "cdevd.bearer.<token>")`
	case "path":
		scheme := "ws://"
		if r.TLS != nil {
			scheme = "wss://"
		}
		return text + ": cdevd's WebSocket endpoint is /ws: connect to " + scheme + r.Host + "/ws"
	}
	return text
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
