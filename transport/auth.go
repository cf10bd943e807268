package transport

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/gorilla/websocket"
)

// hostAllowed defends against DNS rebinding: a page on evil.example that
// resolves to 127.0.0.1 still sends Host: evil.example. Besides loopback
// names and AllowHosts, it accepts the IP address the request came in on:
// a rebinding page has a name of its own, never an IP literal, and an
// address the machine gains after the start (Tailscale coming up, a new
// Wi-Fi) is then accepted without a restart.
func (s *Server) hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if IsLoopbackHost(host) {
		return true
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return false
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ip, err := netip.ParseAddr(host); err == nil {
			if ap, err := netip.ParseAddrPort(local.String()); err == nil && ap.Addr().Unmap() == ip.Unmap() {
				return true
			}
		}
	}
	return slices.ContainsFunc(s.cfg.AllowHosts, func(a string) bool { return strings.EqualFold(a, host) })
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

// originAllowed accepts requests without Origin (native clients), browsers
// on an allowlisted origin, and the console's own pages: the origin that
// names the very host and port the request was sent to. That one is safe
// because the Host check has run: a rebinding page's Host is its own name,
// which is refused before this.
func (s *Server) originAllowed(r *http.Request) bool {
	for _, o := range r.Header.Values("Origin") {
		if !slices.Contains(s.cfg.AllowOrigins, o) && !s.consoleOrigin(r, o) {
			return false
		}
	}
	return true
}

// consoleOrigin reports whether o is the origin of the console cdevd serves
// on the listener r came in on: http://host, or https://host over TLS.
func (s *Server) consoleOrigin(r *http.Request, o string) bool {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return s.cfg.Console != nil && r.Host != "" && strings.EqualFold(o, scheme+r.Host)
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
// has one, else a bearer subprotocol's. The query string is never looked
// at: URLs end up in logs and histories.
func credential(r *http.Request) string {
	if r.Header.Get("Authorization") != "" {
		tok, _ := headerToken(r)
		return tok
	}
	for _, p := range websocket.Subprotocols(r) {
		if t, ok := strings.CutPrefix(p, bearerPrefix); ok {
			return t
		}
	}
	return ""
}

// selectProtocol picks the subprotocol to answer with: Subprotocol if the
// client offered it, else none. The bearer subprotocol is never echoed: it
// holds the token, and response headers end up in proxies' logs and
// browsers' developer tools. RFC 6455 (§4.1) lets a client accept a
// response without a subprotocol, but Chromium fails a handshake that
// offered some and got none back; so browsers offer ["cdevd",
// "cdevd.bearer.<token>"] and get "cdevd".
func selectProtocol(r *http.Request) string {
	if slices.Contains(websocket.Subprotocols(r), Subprotocol) {
		return Subprotocol
	}
	return ""
}
