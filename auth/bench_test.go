package auth

import (
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkAuthenticate is the authenticator's share of an upgrade: the
// owner's token, and a device's access token with 1,000 other devices
// stored (the owner's scheme is asked first, and says no, each time).
func BenchmarkAuthenticate(b *testing.B) {
	st, err := OpenStore(filepath.Join(b.TempDir(), "devices.json"), nil)
	if err != nil {
		b.Fatal(err)
	}
	var tok Tokens
	for i := range 1001 {
		if _, tok, err = st.Add("device "+strconv.Itoa(i), ScopeControl, "", ""); err != nil {
			b.Fatal(err)
		}
	}
	const owner = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	a := New(OwnerToken(owner), st)
	r := httptest.NewRequest("GET", "/ws", nil)
	for _, tc := range []struct{ name, cred string }{{"owner", owner}, {"device", tok.AccessToken}} {
		b.Run(tc.name, func(b *testing.B) {
			r.Header.Set("Authorization", "Bearer "+tc.cred)
			for b.Loop() {
				if _, err := a.Authenticate(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
