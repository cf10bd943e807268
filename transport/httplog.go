package transport

import (
	"strings"

	"go.uber.org/zap"
)

// tlsHandshakeError starts the line net/http logs for a connection whose
// TLS handshake failed (a client that does not trust the certificate, one
// that speaks plain HTTP, a port scanner).
const tlsHandshakeError = "http: TLS handshake error from "

// httpErrorLog receives net/http's own error lines. A failed handshake
// is a refusal like a wrong Host or token: anyone who can reach the port
// can cause one per connection, so it is counted
// (cdevd_upgrades_rejected_total{reason="tls"}) and logged at the refusal
// rate, never a line each. Other lines are logged as they come.
type httpErrorLog struct {
	s   *Server
	log *zap.Logger
}

func (l httpErrorLog) Write(p []byte) (int, error) {
	line := strings.TrimSuffix(string(p), "\n")
	if rest, ok := strings.CutPrefix(line, tlsHandshakeError); ok {
		remote, why, _ := strings.Cut(rest, ": ")
		l.s.noteRefusal("TLS handshake refused", "tls", zap.String("remote", remote), zap.String("error", why))
		return len(p), nil
	}
	l.log.Info(line)
	return len(p), nil
}
