package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// ownerToken is the scheme of the static token kept in $CDEVD_HOME/token
// (or CDEVD_TOKEN): whoever presents it is the owner, with full control.
type ownerToken struct {
	hash [sha256.Size]byte
	set  bool
}

// OwnerToken returns the owner's scheme. An empty token refuses everyone.
// Surrounding spaces are trimmed, as they are from a presented token.
func OwnerToken(token string) Scheme {
	token = strings.TrimSpace(token)
	return &ownerToken{hash: sha256.Sum256([]byte(token)), set: token != ""}
}

// Authenticate compares hashes, so the time taken depends on neither the
// token's content nor its length.
func (o *ownerToken) Authenticate(cred string, _ *http.Request) (Principal, bool) {
	h := sha256.Sum256([]byte(cred))
	if subtle.ConstantTimeCompare(h[:], o.hash[:]) != 1 || !o.set {
		return Principal{}, false
	}
	return Principal{DeviceID: OwnerID, Name: "owner", Scope: ScopeControl}, true
}
