package notify

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"slices"
	"sync"
	"time"
)

// SubscriptionsFileName keeps the browsers' push subscriptions inside
// $CDEVD_HOME.
const SubscriptionsFileName = "push-subscriptions.json"

// maxSubscriptions bounds the stored subscriptions: each is a POST per
// notification.
const maxSubscriptions = 32

// Subscription is a browser's push subscription, as the console registers
// it, with the kinds it wants.
type Subscription struct {
	// ID is derived from the endpoint: registering again replaces.
	ID       string `json:"id"`
	Endpoint string `json:"endpoint"`
	P256dh   string `json:"p256dh"` // the browser's public key, base64url
	Auth     string `json:"auth"`   // the authentication secret, base64url
	Kinds    []Kind `json:"kinds"`
	Device   string `json:"device,omitempty"` // what the console calls itself
	// Owner is the id of the paired device that registered it (auth's
	// device id): revoking that device removes it (RemoveOwner).
	Owner   string    `json:"owner,omitempty"`
	Created time.Time `json:"created"`
}

func (s Subscription) wants(k Kind) bool { return slices.Contains(s.Kinds, k) }

// Subscriptions is the stored list, written atomically (mode 0600) on each
// change: the keys in it let anyone push to the browser.
type Subscriptions struct {
	path string
	mu   sync.Mutex
	subs []Subscription
}

// OpenSubscriptions reads the list in home (none when the file is missing).
func OpenSubscriptions(home string) (*Subscriptions, error) {
	s := &Subscriptions{path: home + string(os.PathSeparator) + SubscriptionsFileName}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &s.subs); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return s, nil
}

// SubscriptionID is the id of the subscription at endpoint.
func SubscriptionID(endpoint string) string {
	sum := sha256.Sum256([]byte(endpoint))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

// Add checks and stores a subscription (replacing one with its endpoint);
// nil kinds is every kind.
func (s *Subscriptions) Add(sub Subscription) (Subscription, error) {
	if err := checkEndpoint(sub.Endpoint); err != nil {
		return Subscription{}, err
	}
	if k, err := base64.RawURLEncoding.DecodeString(trimPad(sub.P256dh)); err != nil || len(k) != 65 || k[0] != 4 {
		return Subscription{}, errors.New("p256dh: want the browser's P-256 public key, 65 bytes uncompressed, base64url")
	}
	if a, err := base64.RawURLEncoding.DecodeString(trimPad(sub.Auth)); err != nil || len(a) != 16 {
		return Subscription{}, errors.New("auth: want the 16-byte authentication secret, base64url")
	}
	if sub.Kinds == nil {
		sub.Kinds = slices.Clone(Kinds)
	}
	if err := checkKinds(sub.Kinds); err != nil {
		return Subscription{}, err
	}
	sub.ID, sub.Created = SubscriptionID(sub.Endpoint), time.Now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.subs, func(o Subscription) bool { return o.ID == sub.ID })
	next := slices.Clone(s.subs)
	switch {
	case i >= 0:
		next[i] = sub
	case len(next) >= maxSubscriptions:
		return Subscription{}, fmt.Errorf("already %d subscriptions: remove one first", maxSubscriptions)
	default:
		next = append(next, sub)
	}
	return sub, s.saveLocked(next)
}

// SetKinds changes the kinds a subscription wants.
func (s *Subscriptions) SetKinds(id string, kinds []Kind) (Subscription, error) {
	if err := checkKinds(kinds); err != nil {
		return Subscription{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.subs, func(o Subscription) bool { return o.ID == id })
	if i < 0 {
		return Subscription{}, ErrNoSubscription
	}
	next := slices.Clone(s.subs)
	next[i].Kinds = slices.Clone(kinds)
	return next[i], s.saveLocked(next)
}

// ErrNoSubscription: no subscription has the id.
var ErrNoSubscription = errors.New("no such subscription")

// Remove forgets a subscription; false if there was none.
func (s *Subscriptions) Remove(id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := slices.DeleteFunc(slices.Clone(s.subs), func(o Subscription) bool { return o.ID == id })
	if len(next) == len(s.subs) {
		return false, nil
	}
	return true, s.saveLocked(next)
}

// RemoveOwner forgets every subscription a device registered: once the
// device is revoked, its browser must hear nothing more. It returns how
// many there were.
func (s *Subscriptions) RemoveOwner(owner string) (int, error) {
	if owner == "" {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := slices.DeleteFunc(slices.Clone(s.subs), func(o Subscription) bool { return o.Owner == owner })
	if len(next) == len(s.subs) {
		return 0, nil
	}
	return len(s.subs) - len(next), s.saveLocked(next)
}

// List is every subscription.
func (s *Subscriptions) List() []Subscription {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.subs)
}

func (s *Subscriptions) saveLocked(next []Subscription) error {
	data, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.path, data); err != nil {
		return err
	}
	s.subs = next
	return nil
}

func checkKinds(kinds []Kind) error {
	if len(kinds) == 0 {
		return errors.New("kinds: empty; list the kinds wanted")
	}
	for _, k := range kinds {
		if !ValidKind(string(k)) {
			return fmt.Errorf("kinds: unknown kind %q", k)
		}
	}
	return nil
}

// checkEndpoint admits https push services, and http on loopback only (a
// push service on this machine, as in tests): a subscription is a URL
// cdevd will POST to, so it must not point anywhere a client chooses.
func checkEndpoint(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return errors.New("endpoint: want the push service's https URL")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	return errors.New("endpoint: want the push service's https URL")
}

func trimPad(s string) string {
	for len(s) > 0 && s[len(s)-1] == '=' {
		s = s[:len(s)-1]
	}
	return s
}
