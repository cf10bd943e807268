package auth

import (
	"errors"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Config configures a Service.
type Config struct {
	OwnerToken string // the static token's scheme; "" refuses it
	DeviceFile string // where paired devices are kept ($CDEVD_HOME/devices.json)
	// Approval makes every pairing wait until the host approves it
	// (serve --pairing-approval).
	Approval bool
	Now      func() time.Time // nil: time.Now (tests move it)
	Logger   *zap.Logger
}

// Service is cdevd's authentication: the schemes, the devices, and the
// pairings in progress.
type Service struct {
	Store    *Store
	auth     *Authenticator
	pairings *pairings
	guesses  *guessLimiter
	now      func() time.Time
	log      *zap.Logger
	// advertised lists where phones reach cdevd (SetAdvertised).
	advertised func() []Addresses
}

// NewService opens the device store and builds the schemes: the owner's
// token first (the common case of a local client), then the devices'.
func NewService(cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	st, err := OpenStore(cfg.DeviceFile, cfg.Now)
	if err != nil {
		return nil, err
	}
	return &Service{Store: st, auth: New(OwnerToken(cfg.OwnerToken), st), pairings: newPairings(cfg.Now, cfg.Approval),
		guesses: newGuessLimiter(cfg.Now), now: cfg.Now, log: cfg.Logger}, nil
}

// Authenticator is the one the transport asks.
func (s *Service) Authenticator() *Authenticator { return s.auth }

// Pair starts a pairing: a device presenting its token, or typing its
// code, becomes a device called name with scope.
func (s *Service) Pair(name string, scope Scope) (Ticket, error) {
	name = strings.TrimSpace(name)
	if err := CheckName(name); err != nil {
		return Ticket{}, err
	}
	t := s.pairings.create(name, scope)
	s.log.Info("pairing started", zap.String("request_id", t.RequestID), zap.String("name", name),
		zap.String("scope", string(scope)), zap.String("expires_at", t.ExpiresAt))
	return t, nil
}

// CheckName bounds a device name: users see it in lists and logs.
func CheckName(name string) error {
	if len(name) > 64 {
		return errors.New("a device name is at most 64 bytes")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return errors.New("a device name has no control characters")
		}
	}
	return nil
}

// Requests lists the pairings in progress (for approval).
func (s *Service) Requests() []Request { return s.pairings.list() }

// Approve lets a pending pairing complete; Reject refuses it.
func (s *Service) Approve(requestID string) error { return s.decide(requestID, true) }

// Reject refuses a pending pairing: the device is told "rejected".
func (s *Service) Reject(requestID string) error { return s.decide(requestID, false) }

func (s *Service) decide(id string, approve bool) error {
	if err := s.pairings.decide(id, approve); err != nil {
		return err
	}
	s.log.Info("pairing decided", zap.String("request_id", id), zap.Bool("approved", approve))
	return nil
}

// Revoke forgets a device and closes its connections.
func (s *Service) Revoke(id string) error {
	if err := s.Store.Revoke(id); err != nil {
		return err
	}
	s.log.Info("device revoked", zap.String("device", id))
	return nil
}

// Rename names a device anew.
func (s *Service) Rename(id, name string) (Device, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Device{}, errors.New("a device needs a name")
	}
	if err := CheckName(name); err != nil {
		return Device{}, err
	}
	d, err := s.Store.Rename(id, name)
	if err == nil {
		s.log.Info("device renamed", zap.String("device", id), zap.String("name", name))
	}
	return d, err
}

// Close writes what is kept only in memory (last-seen times).
func (s *Service) Close() error { return s.Store.Flush() }
