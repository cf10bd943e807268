package auth

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"go.uber.org/zap"
)

// maxBodyBytes bounds the requests of /api: each is a token or a code.
const maxBodyBytes = 4 << 10

// Handler serves the pairing API the iOS app speaks, under /api/ (the
// caller has checked Host and Origin):
//
//	GET  /api/pair/info      the addresses; auth_required
//	POST /api/pair/code      {code} → {pairing_token}
//	POST /api/auth/exchange  {pairing_token} → tokens | 202 pending_approval | 401 | 403 rejected
//	POST /api/auth/refresh   {refresh_token} → a new pair
//	POST /api/auth/revoke    {refresh_token} → 200
//
// and, for `cdevd pair` and `cdevd devices` (with a control credential):
//
//	POST /api/pair/new       {name, scope} → a Ticket, the addresses, the QR payload and its PNG
//	GET  /api/devices        {devices, requests}
//	POST /api/devices/revoke|approve|reject  {id}
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/pair/info", s.info)
	mux.HandleFunc("POST /api/pair/code", s.code)
	mux.HandleFunc("POST /api/auth/exchange", s.exchange)
	mux.HandleFunc("POST /api/auth/refresh", s.refresh)
	mux.HandleFunc("POST /api/auth/revoke", s.revoke)
	mux.HandleFunc("POST /api/pair/new", s.control(s.newPairing))
	mux.HandleFunc("GET /api/devices", s.control(s.listDevices))
	mux.HandleFunc("POST /api/devices/{action}", s.control(s.deviceAction))
	return mux
}

// Addresses are where a client reaches this cdevd, as the app reads them.
type Addresses struct {
	WS   string `json:"ws"`
	HTTP string `json:"http"`
}

// addressesOf are the addresses r was sent to (the Host check has run).
func addressesOf(r *http.Request) Addresses {
	if r.TLS != nil {
		return Addresses{WS: "wss://" + r.Host + "/ws", HTTP: "https://" + r.Host}
	}
	return Addresses{WS: "ws://" + r.Host + "/ws", HTTP: "http://" + r.Host}
}

func (s *Service) info(w http.ResponseWriter, r *http.Request) {
	// ws and http are the address the app asked at, which it reached;
	// urls are every address cdevd advertises, for clients that keep
	// several.
	a := addressesOf(r)
	// Pairing is always required; token and token_expires_at are the old
	// server's way of handing out a token without one, which cdevd never does.
	writeJSON(w, http.StatusOK, map[string]any{"ws": a.WS, "http": a.HTTP, "session": "", "repo": "",
		"auth_required": true, "token": "", "token_expires_at": "", "urls": s.reachable(r)})
}

var sixDigits = regexp.MustCompile(`^[0-9]{6}$`)

func (s *Service) code(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code string `json:"code"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	if !sixDigits.MatchString(req.Code) {
		writeError(w, http.StatusBadRequest, "code must be 6 digits")
		return
	}
	if !s.guesses.allow(hostOf(r.RemoteAddr)) {
		w.Header().Set("Retry-After", "60")
		writeError(w, http.StatusTooManyRequests, "too many codes tried; wait a minute")
		s.log.Warn("pairing code refused: too many tries", zap.String("remote", r.RemoteAddr))
		return
	}
	tok, err := s.pairings.redeemCode(req.Code)
	if err != nil {
		s.log.Info("wrong pairing code", zap.String("remote", r.RemoteAddr))
		writeError(w, http.StatusUnauthorized, "wrong or expired code: run `cdevd pair` for a new one")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"pairing_token": tok})
}

func (s *Service) exchange(w http.ResponseWriter, r *http.Request) {
	var req struct {
		PairingToken string `json:"pairing_token"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	client := r.UserAgent()
	if len(client) > 128 {
		client = client[:128]
	}
	p, pending, err := s.pairings.exchange(req.PairingToken, client, r.RemoteAddr)
	switch {
	case errors.Is(err, ErrRejected):
		writeError(w, http.StatusForbidden, "pairing request rejected")
		return
	case err != nil:
		writeError(w, http.StatusUnauthorized, "invalid or expired pairing token")
		return
	case pending != nil:
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "pending_approval",
			"request_id": pending.ID, "expires_at": pending.ExpiresAt})
		return
	}
	name := p.name
	if name == "" {
		name = defaultName(client)
	}
	d, t, err := s.Store.Add(name, p.scope, client, r.RemoteAddr)
	if err != nil {
		s.log.Error("pairing failed", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "cannot store the device")
		return
	}
	s.log.Info("device paired", zap.String("device", d.ID), zap.String("name", d.Name),
		zap.String("scope", string(d.Scope)), zap.String("remote", r.RemoteAddr))
	writeJSON(w, http.StatusOK, t)
}

// defaultName names a device paired without --name after its client.
func defaultName(userAgent string) string {
	if prod, _, _ := strings.Cut(userAgent, "/"); prod != "" && CheckName(prod) == nil && len(prod) <= 32 {
		return prod
	}
	return "device"
}

func (s *Service) refresh(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RefreshToken string `json:"refresh_token"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	t, err := s.Store.Refresh(req.RefreshToken, r.RemoteAddr)
	switch {
	case errors.Is(err, ErrReplayed):
		id, _ := ReplayedDevice(err)
		s.log.Warn("a refresh token was presented twice: its device is revoked (a copy may be in other hands)",
			zap.String("device", id), zap.String("remote", r.RemoteAddr))
		writeError(w, http.StatusUnauthorized, "refresh token already used: the device is revoked; pair it again")
	case errors.Is(err, ErrInvalidToken):
		writeError(w, http.StatusUnauthorized, "invalid or expired refresh token; pair again")
	case err != nil:
		s.log.Error("refresh failed", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "cannot store the device")
	default:
		writeJSON(w, http.StatusOK, t)
	}
}

func (s *Service) revoke(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RefreshToken string `json:"refresh_token"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	found, err := s.Store.RevokeRefresh(req.RefreshToken)
	if err != nil {
		s.log.Error("revoke failed", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "cannot store the devices")
		return
	}
	if found {
		s.log.Info("device revoked by itself", zap.String("remote", r.RemoteAddr))
	}
	// The same answer either way: it tells nothing about tokens.
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// control wraps an endpoint that needs a control credential in the
// Authorization header.
func (s *Service) control(next func(http.ResponseWriter, *http.Request, Principal)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := s.auth.AuthenticateHeader(r)
		if err != nil {
			writeError(w, http.StatusUnauthorized, "send a control credential as \"Authorization: Bearer <token>\"")
			return
		}
		if !p.CanAct() {
			writeError(w, http.StatusForbidden, "device "+p.DeviceID+" has scope "+string(p.Scope)+"; this needs control")
			return
		}
		next(w, r, p)
	}
}

func (s *Service) newPairing(w http.ResponseWriter, r *http.Request, _ Principal) {
	var req struct {
		Name  string `json:"name"`
		Scope string `json:"scope"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	scope, err := ParseScope(req.Scope)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	t, err := s.Pair(req.Name, scope)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	urls := s.reachable(r)
	candidates := make([]string, len(urls))
	for i, u := range urls {
		candidates[i] = u.WS
	}
	payload, img, err := qrImage(QRPayload{WS: urls[0].WS, HTTP: urls[0].HTTP, Token: t.PairingToken, URLs: candidates})
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot draw the QR code: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, PairAnswer{Ticket: t, Addresses: urls[0], URLs: urls, QRPayload: payload, QRImage: img})
}

// PairAnswer is /api/pair/new's answer: the ticket, the best address
// (ws, http) and every other one, and the QR code that carries them.
type PairAnswer struct {
	Ticket
	Addresses
	URLs      []Addresses `json:"urls"`
	QRPayload string      `json:"qr_payload"` // the JSON the QR code holds
	QRImage   string      `json:"qr_image"`   // the QR code as a PNG data: URL
}

func (s *Service) listDevices(w http.ResponseWriter, _ *http.Request, _ Principal) {
	writeJSON(w, http.StatusOK, map[string]any{"devices": s.Store.List(), "requests": s.Requests()})
}

func (s *Service) deviceAction(w http.ResponseWriter, r *http.Request, _ Principal) {
	var req struct {
		ID string `json:"id"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	var err error
	switch r.PathValue("action") {
	case "revoke":
		err = s.Revoke(req.ID)
	case "approve":
		err = s.Approve(req.ID)
	case "reject":
		err = s.Reject(req.ID)
	default:
		writeError(w, http.StatusNotFound, "no such action; use revoke, approve or reject")
		return
	}
	switch {
	case errors.Is(err, ErrUnknownDevice), errors.Is(err, ErrNoSuchRequest):
		writeError(w, http.StatusNotFound, err.Error()+": "+req.ID)
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	}
}

// readJSON decodes a small JSON body, answering 400 or 413 if it cannot.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "body too large")
			return false
		}
		writeError(w, http.StatusBadRequest, "body must be a JSON object: "+err.Error())
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store") // tokens must not be cached anywhere
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
