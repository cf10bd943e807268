package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
)

// A CLI's offer is kept on disk too (KeepOffers), so that a restarted
// daemon does not ask every CLI again: asking runs each one (a second or
// more of CPU for a Node CLI), and the first initialize waits for it. A
// kept offer is used only for the very binary that gave it (binaryID) and
// the same version, and only while it is younger than OfferTTL, the rule
// a running daemon follows: a CLI updated in place, or an old answer, is
// asked again.

// binaryID is what tells one build of a CLI from another without running
// it: the file its path resolves to (through npm's .bin symlinks), its size
// and its modification time. Installing another version replaces the file.
type binaryID struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mod_time_ns"`
}

// identify is the binaryID of the CLI at path; false when there is no
// such file (an adapter that reports no path, a CLI gone meanwhile).
func identify(path string) (binaryID, bool) {
	if path == "" {
		return binaryID{}, false
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return binaryID{}, false
	}
	fi, err := os.Stat(resolved)
	if err != nil || !fi.Mode().IsRegular() {
		return binaryID{}, false
	}
	return binaryID{Path: resolved, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, true
}

// keptOffer is an offer file's content.
type keptOffer struct {
	Binary  binaryID       `json:"binary"`
	Version string         `json:"version"`
	At      time.Time      `json:"at"`
	Offer   runtimes.Offer `json:"offer"`
}

// KeepOffers has the registry keep what each CLI offers in dir (one file
// per runtime, 0600) and read it back at its first detection. Called
// before Warm; without it offers are kept in memory only.
func (r *Registry) KeepOffers(dir string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.offerDir = dir
}

// safeID is a runtime id that can name a file as it is; a declared agent
// whose id is not one is kept in memory only.
var safeID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// offerFile is where runtime id's offer is kept; "" when nowhere.
func (r *Registry) offerFile(id string) string {
	r.mu.Lock()
	dir := r.offerDir
	r.mu.Unlock()
	if dir == "" || !safeID.MatchString(id) {
		return ""
	}
	return filepath.Join(dir, id+".json")
}

// loadOffer is the offer kept on disk for runtime id, if it was given by
// the binary bin; a missing, unreadable or foreign file is no offer.
func (r *Registry) loadOffer(id string, bin binaryID) (offered, bool) {
	file := r.offerFile(id)
	if file == "" {
		return offered{}, false
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return offered{}, false
	}
	var k keptOffer
	if err := json.Unmarshal(b, &k); err != nil || k.Binary != bin || k.Version == "" {
		return offered{}, false
	}
	return offered{offer: &k.Offer, version: k.Version, binary: k.Binary, at: k.At}, true
}

// saveOffer keeps o on disk for runtime id. A failure only costs the next
// daemon one more question to the CLI, so it is not reported.
func (r *Registry) saveOffer(id string, o offered) {
	file := r.offerFile(id)
	if file == "" {
		return
	}
	b, err := json.Marshal(keptOffer{Binary: o.binary, Version: o.version, At: o.at, Offer: *o.offer})
	if err != nil {
		return
	}
	_ = workspaces.WriteFileAtomic(file, b, 0o600)
}
