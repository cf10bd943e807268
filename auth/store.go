package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cdevd/cdevd/workspaces"
)

// Device is a paired device as users and clients see it.
type Device struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Scope        Scope     `json:"scope"`
	Created      time.Time `json:"created_at"`
	LastSeen     time.Time `json:"last_seen_at,omitzero"`
	LastSeenAddr string    `json:"last_seen_address,omitempty"`
	Client       string    `json:"client,omitempty"` // the User-Agent it paired with
}

// record is a device with the hashes of its current tokens. Retired holds
// the hashes of refresh tokens already exchanged: one presented again
// means a copy is in other hands, and the device is revoked.
type record struct {
	Device
	AccessHash     string    `json:"access_sha256"`
	AccessExpires  time.Time `json:"access_expires_at"`
	RefreshHash    string    `json:"refresh_sha256"`
	RefreshExpires time.Time `json:"refresh_expires_at"`
	Retired        []string  `json:"retired_refresh_sha256,omitempty"`
}

// maxRetired bounds the retired refresh hashes kept per device (one per
// refresh, every 13 minutes or so while the app is open); older ones have
// expired anyway after RefreshTTL.
const maxRetired = 64

// Tokens is a new access and refresh pair, as the app reads it.
type Tokens struct {
	AccessToken           string `json:"access_token"`
	AccessTokenExpiresAt  string `json:"access_token_expires_at"`
	RefreshToken          string `json:"refresh_token"`
	RefreshTokenExpiresAt string `json:"refresh_token_expires_at"`
}

// ISOTime is how times go to the app: ISO 8601 in UTC, whole seconds (the
// app's default date parser takes no fractions).
func ISOTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Errors of the store.
var (
	ErrUnknownDevice = errors.New("no such device")
	ErrInvalidToken  = errors.New("invalid or expired token")
	// ErrReplayed: a refresh token was presented a second time; the device
	// is revoked.
	ErrReplayed = errors.New("refresh token already used: the device is revoked")
)

// replayError is ErrReplayed naming the device revoked, for the log.
type replayError struct{ deviceID string }

func (e *replayError) Error() string        { return ErrReplayed.Error() + " (" + e.deviceID + ")" }
func (e *replayError) Is(target error) bool { return target == ErrReplayed }

// ReplayedDevice is the device a refresh token replay revoked, if err is one.
func ReplayedDevice(err error) (string, bool) {
	var r *replayError
	if errors.As(err, &r) {
		return r.deviceID, true
	}
	return "", false
}

// Store keeps the paired devices in one file (mode 0600, replaced
// atomically), with the hashes of their tokens only. It is the scheme of
// the devices' access tokens (devices.go).
type Store struct {
	file string
	now  func() time.Time

	mu        sync.RWMutex
	devices   map[string]*record // by id
	byAccess  map[string]*record // by access token hash
	byRefresh map[string]*record // by current refresh token hash
	byRetired map[string]*record // by retired refresh token hash
	seenDirty bool               // last-seen changed since the last write
	onRevoke  []func(deviceID string)
}

// OpenStore loads file, or starts empty if it does not exist. A file other
// users can read is refused: its hashes would let them check guesses, and
// it may have been replaced.
func OpenStore(file string, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	s := &Store{file: file, now: now, devices: map[string]*record{}}
	if fi, err := os.Stat(file); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("device file %s is readable by other users (mode %04o): remove it and pair the devices again",
			file, fi.Mode().Perm())
	}
	b, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read devices: %w", err)
	default:
		var f struct {
			Devices []*record `json:"devices"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for _, r := range f.Devices {
			s.devices[r.ID] = r
		}
	}
	s.reindex()
	return s, nil
}

func (s *Store) reindex() {
	s.byAccess, s.byRefresh, s.byRetired = map[string]*record{}, map[string]*record{}, map[string]*record{}
	for _, r := range s.devices {
		s.byAccess[r.AccessHash] = r
		s.byRefresh[r.RefreshHash] = r
		for _, h := range r.Retired {
			s.byRetired[h] = r
		}
	}
}

// OnRevoke registers f, called (without the store's lock) with the id of
// each device revoked, so that its open connections can be closed.
func (s *Store) OnRevoke(f func(deviceID string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRevoke = append(s.onRevoke, f)
}

// save writes every device; the caller holds mu.
func (s *Store) save() error {
	list := make([]*record, 0, len(s.devices))
	for _, r := range s.devices {
		list = append(list, r)
	}
	slices.SortFunc(list, func(a, b *record) int { return a.Created.Compare(b.Created) })
	b, err := json.MarshalIndent(map[string]any{"devices": list}, "", "  ")
	if err != nil {
		return err
	}
	if err := workspaces.WriteFileAtomic(s.file, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write devices: %w", err)
	}
	s.seenDirty = false
	return nil
}

// issue gives r a new token pair, retiring its refresh token; the caller
// holds mu.
func (s *Store) issue(r *record) Tokens {
	now := s.now()
	access, refresh := newToken(AccessPrefix), newToken(RefreshPrefix)
	delete(s.byAccess, r.AccessHash)
	if r.RefreshHash != "" {
		delete(s.byRefresh, r.RefreshHash)
		r.Retired = append(r.Retired, r.RefreshHash)
		s.byRetired[r.RefreshHash] = r
		if n := len(r.Retired) - maxRetired; n > 0 {
			for _, h := range r.Retired[:n] {
				delete(s.byRetired, h)
			}
			r.Retired = slices.Clone(r.Retired[n:])
		}
	}
	r.AccessHash, r.AccessExpires = hashToken(access), now.Add(AccessTTL)
	r.RefreshHash, r.RefreshExpires = hashToken(refresh), now.Add(RefreshTTL)
	s.byAccess[r.AccessHash], s.byRefresh[r.RefreshHash] = r, r
	return Tokens{AccessToken: access, AccessTokenExpiresAt: ISOTime(r.AccessExpires),
		RefreshToken: refresh, RefreshTokenExpiresAt: ISOTime(r.RefreshExpires)}
}

// Add pairs a new device and returns its first token pair.
func (s *Store) Add(name string, scope Scope, client, addr string) (Device, Tokens, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	r := &record{Device: Device{ID: newID("dev_"), Name: name, Scope: scope, Created: now.UTC(),
		LastSeen: now.UTC(), LastSeenAddr: hostOf(addr), Client: client}}
	s.devices[r.ID] = r
	t := s.issue(r)
	if err := s.save(); err != nil {
		s.drop(r)
		return Device{}, Tokens{}, err
	}
	return r.Device, t, nil
}

// Refresh exchanges a refresh token for a new pair. A refresh token seen
// before revokes its device (ErrReplayed).
func (s *Store) Refresh(refresh, addr string) (Tokens, error) {
	h := hashToken(refresh)
	s.mu.Lock()
	if r := s.byRetired[h]; r != nil {
		s.drop(r)
		err := s.save()
		s.mu.Unlock()
		s.revoked(r.ID)
		return Tokens{}, errors.Join(&replayError{deviceID: r.ID}, err)
	}
	defer s.mu.Unlock()
	r := s.byRefresh[h]
	if r == nil || !s.now().Before(r.RefreshExpires) {
		return Tokens{}, ErrInvalidToken
	}
	t := s.issue(r)
	r.LastSeen, r.LastSeenAddr = s.now().UTC(), hostOf(addr)
	if err := s.save(); err != nil {
		return Tokens{}, err
	}
	return t, nil
}

// RevokeRefresh revokes the device whose refresh token (current or
// retired) this is; it reports whether there was one.
func (s *Store) RevokeRefresh(refresh string) (bool, error) {
	h := hashToken(refresh)
	s.mu.RLock()
	r := s.byRefresh[h]
	if r == nil {
		r = s.byRetired[h]
	}
	s.mu.RUnlock()
	if r == nil {
		return false, nil
	}
	return true, s.Revoke(r.ID)
}

// Revoke forgets a device: its tokens are refused from now on, and its
// open connections are closed (OnRevoke).
func (s *Store) Revoke(id string) error {
	s.mu.Lock()
	r := s.devices[id]
	if r == nil {
		s.mu.Unlock()
		return ErrUnknownDevice
	}
	s.drop(r)
	err := s.save()
	s.mu.Unlock()
	s.revoked(id)
	return err
}

// drop removes r from every index; the caller holds mu.
func (s *Store) drop(r *record) {
	delete(s.devices, r.ID)
	delete(s.byAccess, r.AccessHash)
	delete(s.byRefresh, r.RefreshHash)
	for _, h := range r.Retired {
		delete(s.byRetired, h)
	}
}

func (s *Store) revoked(id string) {
	s.mu.RLock()
	fs := slices.Clone(s.onRevoke)
	s.mu.RUnlock()
	for _, f := range fs {
		f(id)
	}
}

// Rename changes a device's name.
func (s *Store) Rename(id, name string) (Device, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.devices[id]
	if r == nil {
		return Device{}, ErrUnknownDevice
	}
	r.Name = name
	return r.Device, s.save()
}

// Get returns one device.
func (s *Store) Get(id string) (Device, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r := s.devices[id]
	if r == nil {
		return Device{}, false
	}
	return r.Device, true
}

// List returns the devices, oldest first.
func (s *Store) List() []Device {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Device, 0, len(s.devices))
	for _, r := range s.devices {
		out = append(out, r.Device)
	}
	slices.SortFunc(out, func(a, b Device) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Flush writes the last-seen times if they changed: they are kept in
// memory as connections come, not written on each one.
func (s *Store) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.seenDirty {
		return nil
	}
	return s.save()
}

// hostOf is the address part of a remote "host:port".
func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}
