package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"time"
)

// The prefixes of the tokens cdevd issues, as the iOS app knows them: a
// pairing token is exchanged once for an access token and a refresh token.
const (
	PairingPrefix = "cdev_p_"
	AccessPrefix  = "cdev_s_"
	RefreshPrefix = "cdev_r_"
)

// Lifetimes. An access token is short so that a copied one is worth little;
// the app refreshes it two minutes before it expires and before each
// reconnect.
const (
	PairingTTL = 10 * time.Minute
	AccessTTL  = 15 * time.Minute
	RefreshTTL = 7 * 24 * time.Hour
)

// newToken is prefix and 130 random bits (rand.Text).
func newToken(prefix string) string { return prefix + rand.Text() }

// hashToken is what is kept of a token: its SHA-256, in hex. The tokens
// hashed carry at least 128 random bits, so a slow hash would add nothing.
func hashToken(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

// newCode is a 6-digit pairing code, uniformly drawn.
func newCode() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	s := n.String()
	for len(s) < 6 {
		s = "0" + s
	}
	return s
}

// newID is a device or request id: random, short, not a secret.
func newID(prefix string) string { return prefix + rand.Text()[:12] }
