package transport

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/auth"
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

// authenticate asks the authenticator who r comes from (see the auth
// package: the owner's token, or a paired device's access token).
func (s *Server) authenticate(r *http.Request) (auth.Principal, error) {
	return s.authn.Authenticate(r)
}

// CloseDevice closes every open connection of a device (revoked), with
// 1008, and returns how many there were.
func (s *Server) CloseDevice(deviceID string) int {
	s.mu.Lock()
	var conns []*Conn
	for c := range s.conns {
		if c.principal.DeviceID == deviceID {
			conns = append(conns, c)
		}
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.Close(websocket.ClosePolicyViolation, "device revoked")
	}
	return len(conns)
}

// apiGuard checks what the pairing API needs beyond the Host check, which
// has run: a page on another origin must not post to it (a browser sends
// Origin on every cross-origin POST).
func (s *Server) apiGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.originAllowed(r) {
			s.refuse(w, r, "origin", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
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
