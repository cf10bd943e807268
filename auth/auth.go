// Package auth decides who a request comes from. An Authenticator turns an
// HTTP request into a Principal (a device, its name and its scope) or a
// refusal, by asking its schemes in turn: the owner's static token
// (owner.go) and the paired devices' access tokens (devices.go). It also
// keeps the paired devices (store.go) and runs the pairing flow the iOS app
// speaks (pairing.go, http.go).
//
// Secrets never leave this package in clear except to the one client they
// are issued to: tokens are stored as SHA-256 hashes (they are 128 random
// bits or more, so a fast hash is enough), and a Principal holds no secret,
// so it may be logged and shown to other clients.
package auth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gorilla/websocket"
)

// Scope is what a principal may do.
type Scope string

const (
	// ScopeControl may call every method.
	ScopeControl Scope = "control"
	// ScopeWatch may read (lists, history, messages, watching sessions)
	// but not act (start, send, stop, answer, change workspaces, manage
	// devices).
	ScopeWatch Scope = "watch"
)

// ParseScope checks a scope named by a user or a client; "" is control.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case "", ScopeControl:
		return ScopeControl, nil
	case ScopeWatch:
		return ScopeWatch, nil
	}
	return "", errors.New(`scope must be "control" or "watch", not "` + s + `"`)
}

// OwnerID is the device id of whoever presents the owner's token.
const OwnerID = "owner"

// Principal is who a connection belongs to. It holds no secret.
type Principal struct {
	DeviceID string `json:"device_id"`
	Name     string `json:"name"`
	Scope    Scope  `json:"scope"`
}

// CanAct reports whether p may call methods that change something.
func (p Principal) CanAct() bool { return p.Scope == ScopeControl }

// Scheme is one way of proving who one is: it recognises the credential
// it issued, and reports false for any other.
type Scheme interface {
	Authenticate(credential string, r *http.Request) (Principal, bool)
}

// ErrNoCredential and ErrRefused are the two refusals: nothing was
// presented, or what was presented is no scheme's.
var (
	ErrNoCredential = errors.New("no credential")
	ErrRefused      = errors.New("credential refused")
)

// Authenticator asks its schemes, in order, who presents a request's
// credential.
type Authenticator struct {
	schemes []Scheme
}

// New returns an Authenticator over schemes.
func New(schemes ...Scheme) *Authenticator { return &Authenticator{schemes: schemes} }

// Authenticate returns the principal r's credential names.
func (a *Authenticator) Authenticate(r *http.Request) (Principal, error) {
	return a.AuthenticateCredential(Credential(r), r)
}

// AuthenticateHeader is Authenticate for endpoints that take the
// Authorization header only (not the browsers' subprotocol).
func (a *Authenticator) AuthenticateHeader(r *http.Request) (Principal, error) {
	tok, _ := HeaderToken(r)
	return a.AuthenticateCredential(tok, r)
}

// AuthenticateCredential returns the principal cred names.
func (a *Authenticator) AuthenticateCredential(cred string, r *http.Request) (Principal, error) {
	if cred == "" {
		return Principal{}, ErrNoCredential
	}
	for _, s := range a.schemes {
		if p, ok := s.Authenticate(cred, r); ok {
			return p, nil
		}
	}
	return Principal{}, ErrRefused
}

// BearerSubprotocolPrefix starts the WebSocket subprotocol that carries a
// token, for browsers, which cannot set an Authorization header on a
// WebSocket.
const BearerSubprotocolPrefix = "cdevd.bearer."

// HeaderToken returns the token of an "Authorization: Bearer" header.
func HeaderToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// Credential returns the token r presents: the Authorization header's if it
// has one, else a bearer subprotocol's. The query string is never looked
// at: URLs end up in logs and histories.
func Credential(r *http.Request) string {
	if r.Header.Get("Authorization") != "" {
		tok, _ := HeaderToken(r)
		return tok
	}
	for _, p := range websocket.Subprotocols(r) {
		if t, ok := strings.CutPrefix(p, BearerSubprotocolPrefix); ok {
			return t
		}
	}
	return ""
}
