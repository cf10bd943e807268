package transport

import "net/http"

// securityHeaders go on every HTTP response. They are set before routing
// (see Server.ServeHTTP), so that no path can miss them: the probes,
// /metrics, refusals, and the mux's own 404, 405 and redirects. Nothing
// but the console is a page, so the policy forbids everything; the
// console sets its own policy over this one for its pages.
var securityHeaders = [...]struct{ name, value string }{
	{"Content-Security-Policy", "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
	{"X-Frame-Options", "DENY"},
	{"X-Content-Type-Options", "nosniff"},
	{"Referrer-Policy", "no-referrer"},
}

func setSecurityHeaders(h http.Header) {
	for _, sh := range securityHeaders {
		h.Set(sh.name, sh.value)
	}
}

// closingWriter ends the connection after any response of status 400 or
// more, whoever wrote it (a check, a handler, the mux, the WebSocket
// library): a refused client must not keep the connection, and with it a
// slot of the listener, to be refused again and again.
type closingWriter struct {
	http.ResponseWriter
}

func (w closingWriter) WriteHeader(code int) {
	if code >= http.StatusBadRequest {
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController (and so the upgrade's Hijack) reach
// the connection's own ResponseWriter.
func (w closingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
