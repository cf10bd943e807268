package transport

import (
	"crypto/tls"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/cdevd/cdevd/auth"
)

// Defaults for the zero values of Config.
const (
	DefaultMaxFrameBytes     = 16 << 20
	DefaultSendQueue         = 1024
	DefaultMaxInflight       = 32
	DefaultPingInterval      = 20 * time.Second
	DefaultHeartbeatInterval = 25 * time.Second // the iOS client gives up after 45 s of silence
	DefaultWriteTimeout      = 10 * time.Second
	// DefaultMessageTimeout bounds a message from its first frame to its
	// final one. Pongs keep a connection alive, not a message: without it,
	// a client that answers pings could keep MaxFrameBytes of a message it
	// never finishes buffered for ever, on each of MaxConns connections.
	// A minute is a 16 MiB message at 2.2 Mbit/s.
	DefaultMessageTimeout = time.Minute
	// unfinishedPerFrameLimit sizes the default MaxUnfinishedBytes: room
	// for this many messages of MaxFrameBytes being received at once
	// (256 MiB at the defaults).
	unfinishedPerFrameLimit = 16

	// The HTTP side, before a WebSocket exists. None of these applies to a
	// WebSocket: the upgrade clears the deadlines net/http set, and the
	// connection then lives by its pings.
	DefaultReadHeaderTimeout = 10 * time.Second // a client that never finishes its headers
	DefaultReadTimeout       = 30 * time.Second // a whole request, body included (ours have none)
	DefaultIdleTimeout       = 60 * time.Second // a keep-alive connection between requests
	DefaultResponseTimeout   = 30 * time.Second // writing a response (ours are small) to a client that reads slowly
	// DefaultMaxHTTPConns bounds connections that are not WebSockets (yet);
	// a newcomer over it closes an idle one (see limitListener). Probes and
	// upgrades need few.
	DefaultMaxHTTPConns = 128
	// DefaultMaxConns bounds open WebSockets; over it an upgrade gets 503.
	DefaultMaxConns = 4096
)

// readBufferSize is each connection's read buffer, which it keeps for
// life; it must exceed 256 bytes, or the library would not use it (see
// hijacker). Requests are small: one read usually takes a whole frame, and
// a bigger frame's payload is read past the buffer, straight into the
// message (net/http's own 4 KiB buffer would be kept otherwise).
const readBufferSize = 1024

// refusalLogRate bounds the "upgrade refused" log lines: whoever can reach
// the port can provoke one per request, and must not be able to flood the
// log. What is not logged is counted and reported on the next line logged
// (and every refusal is counted in cdevd_upgrades_rejected_total).
const refusalLogRate = 5 // lines per second, and the burst

// Subprotocol is the WebSocket subprotocol cdevd speaks. A browser that
// sends its token as a bearer subprotocol should offer this one too, so the
// server selects it rather than echoing the token back.
const Subprotocol = "cdevd"

// bearerPrefix starts the subprotocol that carries the token, for browsers,
// which cannot set an Authorization header on a WebSocket.
const bearerPrefix = auth.BearerSubprotocolPrefix

// Config configures a Server. Zero values take the defaults above.
type Config struct {
	Token string // the owner's token, when Auth is nil (an empty token refuses everyone)
	// Auth decides who each request comes from (nil: the owner's Token only).
	Auth *auth.Authenticator
	// API, when set, serves /api/ (the pairing API), behind the Host and
	// Origin checks.
	API                http.Handler
	AllowOrigins       []string             // exact Origin values allowed (e.g. "https://app.example"); none by default
	AllowHosts         []string             // Host names allowed besides loopback IPs and "localhost" (any port)
	MaxFrameBytes      int64                // a bigger message closes the socket with 1009
	SendQueue          int                  // per-connection outbound queue (messages); overflow closes with 1013
	MaxInflight        int                  // per-connection concurrent requests; beyond it: rpc.Overloaded
	PingInterval       time.Duration        // WebSocket ping; a peer silent for twice this is dropped
	HeartbeatInterval  time.Duration        // event/heartbeat notification; keep it under 30 s
	WriteTimeout       time.Duration        // bound on writing one frame
	MaxReplyBytes      int64                // bound on the replies of one batch together (default MaxFrameBytes)
	MessageTimeout     time.Duration        // from a message's first frame to its last; past it, the socket closes with 1008
	MaxUnfinishedBytes int64                // bytes held for messages still being received, all connections together (default 16 × MaxFrameBytes); a connection that needs more closes with 1013
	ReadHeaderTimeout  time.Duration        // HTTP: time to send a request's headers
	ReadTimeout        time.Duration        // HTTP: time to send a whole request
	IdleTimeout        time.Duration        // HTTP: a keep-alive connection idle this long is closed
	ResponseTimeout    time.Duration        // HTTP: time to write a response
	MaxHTTPConns       int                  // connections not upgraded to WebSocket (see limitListener)
	MaxConns           int                  // open WebSockets; more are refused with 503
	Ready              func() bool          // GET /readyz: 200 when true, 503 otherwise (nil = ready)
	Registry           *prometheus.Registry // metrics are registered here and served at /metrics (nil = new one)
	// Console, when set, serves every other GET (the web console at /),
	// and the Origin check then also accepts the page's own origin.
	Console http.Handler
	Logger  *zap.Logger
	// TLS, when set, makes Serve speak https and wss only, on the same
	// port (its GetCertificate may reload a renewed certificate).
	TLS *tls.Config
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
	if cfg.MessageTimeout <= 0 {
		cfg.MessageTimeout = DefaultMessageTimeout
	}
	if cfg.MaxUnfinishedBytes <= 0 {
		cfg.MaxUnfinishedBytes = unfinishedPerFrameLimit * cfg.MaxFrameBytes
	}
	if cfg.MaxReplyBytes <= 0 {
		cfg.MaxReplyBytes = cfg.MaxFrameBytes
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.ResponseTimeout <= 0 {
		cfg.ResponseTimeout = DefaultResponseTimeout
	}
	if cfg.MaxHTTPConns <= 0 {
		cfg.MaxHTTPConns = DefaultMaxHTTPConns
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	return cfg
}
