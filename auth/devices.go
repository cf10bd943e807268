package auth

import (
	"net/http"
	"strings"
)

// Authenticate is the devices' scheme: a current, unexpired access token
// names its device. The look-up is by the token's hash, so its timing
// tells nothing about any token. The device's last-seen time and address
// are updated in memory (Flush writes them).
func (s *Store) Authenticate(cred string, r *http.Request) (Principal, bool) {
	if !strings.HasPrefix(cred, AccessPrefix) {
		return Principal{}, false
	}
	h := hashToken(cred)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.byAccess[h]
	now := s.now()
	if d == nil || !now.Before(d.AccessExpires) {
		return Principal{}, false
	}
	d.LastSeen, s.seenDirty = now.UTC(), true
	if r != nil {
		d.LastSeenAddr = hostOf(r.RemoteAddr)
	}
	return Principal{DeviceID: d.ID, Name: d.Name, Scope: d.Scope}, true
}
