package auth

import (
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a test's time, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func openTestStore(t *testing.T, c *clock) (*Store, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "devices.json")
	s, err := OpenStore(file, c.now)
	if err != nil {
		t.Fatal(err)
	}
	return s, file
}

func accepts(s Scheme, tok string) (Principal, bool) {
	return s.Authenticate(tok, httptest.NewRequest("GET", "/ws", nil))
}

func TestOwnerToken(t *testing.T) {
	const tok = "0123456789abcdef0123456789abcdef"
	o := OwnerToken(" " + tok + " ")
	if p, ok := accepts(o, tok); !ok || p.DeviceID != OwnerID || p.Scope != ScopeControl {
		t.Errorf("owner token: %+v %v, want the owner with control", p, ok)
	}
	for _, bad := range []string{tok + "x", tok[:16], "", strings.ToUpper(tok)} {
		if _, ok := accepts(o, bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, ok := accepts(OwnerToken(""), ""); ok {
		t.Error("an empty owner token accepted an empty credential")
	}
}

func TestAccessTokenNamesItsDeviceUntilItExpires(t *testing.T) {
	c := newClock()
	s, _ := openTestStore(t, c)
	d, tok, err := s.Add("phone", ScopeWatch, "cdev-ios/1.0", "192.0.2.7:5000")
	if err != nil {
		t.Fatal(err)
	}
	for prefix, v := range map[string]string{AccessPrefix: tok.AccessToken, RefreshPrefix: tok.RefreshToken} {
		if !strings.HasPrefix(v, prefix) || len(v) < len(prefix)+26 {
			t.Errorf("token %q: want %s and 26 random characters", v, prefix)
		}
	}
	p, ok := accepts(s, tok.AccessToken)
	if !ok || p != (Principal{DeviceID: d.ID, Name: "phone", Scope: ScopeWatch}) {
		t.Fatalf("access token: %+v %v", p, ok)
	}
	if _, ok := accepts(s, tok.RefreshToken); ok {
		t.Error("a refresh token was accepted as an access token")
	}
	c.advance(AccessTTL)
	if _, ok := accepts(s, tok.AccessToken); ok {
		t.Error("an expired access token was accepted")
	}
}

func TestRefreshRotatesAndAReplayRevokes(t *testing.T) {
	c := newClock()
	s, _ := openTestStore(t, c)
	var revoked []string
	s.OnRevoke(func(id string) { revoked = append(revoked, id) })
	d, first, _ := s.Add("phone", ScopeControl, "", "")
	second, err := s.Refresh(first.RefreshToken, "192.0.2.8:1")
	if err != nil {
		t.Fatal(err)
	}
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Fatal("refresh returned the same tokens")
	}
	if _, ok := accepts(s, first.AccessToken); ok {
		t.Error("the replaced access token is still accepted")
	}
	if _, ok := accepts(s, second.AccessToken); !ok {
		t.Error("the new access token is refused")
	}
	// The first refresh token again: a copy is in other hands.
	_, err = s.Refresh(first.RefreshToken, "")
	if id, ok := ReplayedDevice(err); !errors.Is(err, ErrReplayed) || !ok || id != d.ID {
		t.Fatalf("replayed refresh: %v, want ErrReplayed naming %s", err, d.ID)
	}
	if len(revoked) != 1 || revoked[0] != d.ID {
		t.Errorf("OnRevoke got %v, want [%s]", revoked, d.ID)
	}
	if _, ok := accepts(s, second.AccessToken); ok {
		t.Error("the revoked device's access token is still accepted")
	}
	if _, err := s.Refresh(second.RefreshToken, ""); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("the revoked device's refresh: %v, want ErrInvalidToken", err)
	}
	if len(s.List()) != 0 {
		t.Errorf("devices after revocation: %v", s.List())
	}
}

func TestRefreshTokenExpires(t *testing.T) {
	c := newClock()
	s, _ := openTestStore(t, c)
	_, tok, _ := s.Add("phone", ScopeControl, "", "")
	c.advance(RefreshTTL)
	if _, err := s.Refresh(tok.RefreshToken, ""); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("expired refresh: %v, want ErrInvalidToken", err)
	}
}

func TestStoreFileIsPrivateHashedAndSurvivesARestart(t *testing.T) {
	c := newClock()
	s, file := openTestStore(t, c)
	d, tok, _ := s.Add("phone", ScopeControl, "cdev-ios", "192.0.2.7:5000")
	next, _ := s.Refresh(tok.RefreshToken, "")
	if _, err := s.Rename(d.ID, "Anna's phone"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o, want 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(file)
	for _, secret := range []string{tok.AccessToken, tok.RefreshToken, next.AccessToken, next.RefreshToken} {
		if strings.Contains(string(b), secret) || strings.Contains(string(b), strings.TrimPrefix(secret, secret[:7])) {
			t.Errorf("the device file holds a token in clear: %s", b)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(file))
	if len(entries) != 1 {
		t.Errorf("left beside the file: %v (a write must be a rename)", entries)
	}

	again, err := OpenStore(file, c.now)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := accepts(again, next.AccessToken); !ok || p.Name != "Anna's phone" {
		t.Errorf("after a restart: %+v %v", p, ok)
	}
	if _, err := again.Refresh(tok.RefreshToken, ""); !errors.Is(err, ErrReplayed) {
		t.Errorf("a refresh token replayed after a restart: %v, want ErrReplayed", err)
	}

	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(file, c.now); err == nil || !strings.Contains(err.Error(), "readable by other users") {
		t.Errorf("a device file others can read: %v, want a refusal", err)
	}
}

func TestLastSeenIsKeptAndFlushed(t *testing.T) {
	c := newClock()
	s, file := openTestStore(t, c)
	d, tok, _ := s.Add("phone", ScopeControl, "", "192.0.2.7:5000")
	c.advance(time.Minute)
	r := httptest.NewRequest("GET", "/ws", nil)
	r.RemoteAddr = "198.51.100.9:4242"
	if _, ok := s.Authenticate(tok.AccessToken, r); !ok {
		t.Fatal("refused")
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	again, _ := OpenStore(file, c.now)
	got, _ := again.Get(d.ID)
	if !got.LastSeen.Equal(c.now()) || got.LastSeenAddr != "198.51.100.9" {
		t.Errorf("last seen %v at %q, want %v at 198.51.100.9", got.LastSeen, got.LastSeenAddr, c.now())
	}
}

func TestRevokeAndRenameUnknownDevice(t *testing.T) {
	s, _ := openTestStore(t, newClock())
	if err := s.Revoke("dev_nope"); !errors.Is(err, ErrUnknownDevice) {
		t.Errorf("revoke: %v", err)
	}
	if _, err := s.Rename("dev_nope", "x"); !errors.Is(err, ErrUnknownDevice) {
		t.Errorf("rename: %v", err)
	}
}
