package notify

// Web Push against a fake push service on loopback: the test decrypts each
// payload with the subscription's private key (RFC 8291, RFC 8188) and
// checks the VAPID JWT's ES256 signature (RFC 8292) with real
// cryptography, written here independently of the library that sends.

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// browser is what a browser keeps for its subscription.
type browser struct {
	key  *ecdh.PrivateKey
	auth []byte
}

func newBrowser(t *testing.T) browser {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	return browser{key: k, auth: auth}
}

func (b browser) subscription(endpoint string, kinds ...Kind) Subscription {
	return Subscription{Endpoint: endpoint, Kinds: kinds, Device: "test browser",
		P256dh: base64.RawURLEncoding.EncodeToString(b.key.PublicKey().Bytes()),
		Auth:   base64.RawURLEncoding.EncodeToString(b.auth)}
}

// decrypt undoes RFC 8291's aes128gcm encoding of body.
func (b browser) decrypt(t *testing.T, body []byte) []byte {
	t.Helper()
	if len(body) < 21 {
		t.Fatalf("body of %d bytes", len(body))
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || rs < 18 {
		t.Fatalf("header: idlen %d, rs %d", idlen, rs)
	}
	serverPublic := body[21 : 21+idlen]
	ciphertext := body[21+idlen:]
	if len(ciphertext) > int(rs) {
		t.Fatalf("%d bytes of ciphertext in records of %d: want one record", len(ciphertext), rs)
	}
	peer, err := ecdh.P256().NewPublicKey(serverPublic)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := b.key.ECDH(peer)
	if err != nil {
		t.Fatal(err)
	}
	info := append(append([]byte("WebPush: info\x00"), b.key.PublicKey().Bytes()...), serverPublic...)
	prkKey, _ := hkdf.Extract(sha256.New, shared, b.auth)
	ikm, _ := hkdf.Expand(sha256.New, prkKey, string(info), 32)
	prk, _ := hkdf.Extract(sha256.New, ikm, salt)
	cek, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	nonce, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	block, err := aes.NewCipher(cek)
	if err != nil {
		t.Fatal(err)
	}
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, ciphertext, nil)
	if err != nil {
		t.Fatalf("decrypt: %v", err)
	}
	// The last record ends with 0x02, then zero padding.
	end := bytes.LastIndexFunc(plain, func(r rune) bool { return r != 0 })
	if end < 0 || plain[end] != 2 {
		t.Fatalf("no last-record delimiter")
	}
	return plain[:end]
}

// checkVAPID verifies the Authorization header: "vapid t=<JWT>, k=<key>",
// an ES256 JWT signed by key, for the push service's origin, not expired,
// and key the daemon's public VAPID key.
func checkVAPID(t *testing.T, header, origin, public string) {
	t.Helper()
	rest, ok := strings.CutPrefix(header, "vapid ")
	if !ok {
		t.Fatalf("Authorization %q", header)
	}
	var token, key string
	for part := range strings.SplitSeq(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			token = v
		case "k":
			key = v
		}
	}
	if key != strings.TrimRight(public, "=") {
		t.Errorf("k=%q, want the daemon's public key %q", key, public)
	}
	raw, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("JWT %q", token)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		t.Fatalf("signature of %d bytes: %v", len(sig), err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("the VAPID JWT's signature does not verify with its key")
	}
	var head struct{ Alg, Typ string }
	var claims struct {
		Aud string
		Exp int64
		Sub string
	}
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	c, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(h, &head) != nil || json.Unmarshal(c, &claims) != nil {
		t.Fatalf("JWT %s.%s", h, c)
	}
	now := time.Now().Unix()
	if head.Alg != "ES256" || claims.Aud != origin || claims.Exp <= now || claims.Exp > now+24*3600 ||
		claims.Sub != DefaultPushSubject {
		t.Errorf("JWT header %+v claims %+v (origin %s)", head, claims, origin)
	}
}

// pushed is one request the fake push service took.
type pushed struct {
	header http.Header
	body   []byte
}

func TestWebPushEncryptedAndSigned(t *testing.T) {
	home := t.TempDir()
	keys, err := LoadVAPID(home)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(home, VAPIDFileName)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("VAPID file %v, %v: want mode 0600", info, err)
	}
	if again, err := LoadVAPID(home); err != nil || again != keys {
		t.Fatalf("second start made new keys (%v): subscriptions would break", err)
	}
	got := make(chan pushed, 10)
	var status atomic.Int32
	status.Store(http.StatusCreated)
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- pushed{r.Header.Clone(), body}
		w.WriteHeader(int(status.Load()))
	}))
	t.Cleanup(service.Close)

	subs, err := OpenSubscriptions(home)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	sub, err := subs.Add(b.subscription(service.URL+"/push/device1", KindPermission))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := start(t, Config{Sinks: []Sink{NewWebPush(subs, keys, "", nil)}})
	n.Observe(sessionEvent(t, rpc.EventTurnCompleted, "s1", rpc.TurnCompletedEvent{})) // not a kind it wants
	n.Observe(permission(t, "s1", "req1", "make deploy"))

	p := <-got
	if p.header.Get("Content-Encoding") != "aes128gcm" || p.header.Get("TTL") == "" || p.header.Get("Urgency") != "high" ||
		len(p.header.Get("Topic")) == 0 || len(p.header.Get("Topic")) > 32 {
		t.Errorf("headers %v", p.header)
	}
	checkVAPID(t, p.header.Get("Authorization"), service.URL, keys.Public)
	var payload PushPayload
	if err := json.Unmarshal(b.decrypt(t, p.body), &payload); err != nil {
		t.Fatal(err)
	}
	if payload.Tag != "s1/req1" || payload.Action != ActionNotify || payload.Kind != KindPermission ||
		!strings.Contains(payload.Body, "make deploy") || !strings.Contains(payload.URL, "session=s1") {
		t.Errorf("payload %+v", payload)
	}
	if bytes.Contains(p.body, []byte("make deploy")) {
		t.Error("the body holds the text in the clear")
	}

	// The answer withdraws it: same tag, same topic.
	n.Observe(resolved(t, "s1", "req1"))
	w := <-got
	var withdrawal PushPayload
	if err := json.Unmarshal(b.decrypt(t, w.body), &withdrawal); err != nil {
		t.Fatal(err)
	}
	if withdrawal.Tag != "s1/req1" || withdrawal.Action != ActionWithdraw || w.header.Get("Topic") != p.header.Get("Topic") {
		t.Errorf("withdrawal %+v, topic %q", withdrawal, w.header.Get("Topic"))
	}

	// A subscription the push service says is gone is forgotten.
	status.Store(http.StatusGone)
	outcomes := make(chan error, 1)
	n2, _ := start(t, Config{Sinks: []Sink{NewWebPush(subs, keys, "", nil)},
		delivered: func(_ string, _ Notification, err error) { outcomes <- err }})
	n2.Observe(permission(t, "s2", "req2", "ls"))
	<-got
	if err := <-outcomes; err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("delivery to a gone subscription: %v", err)
	}
	if left := subs.List(); len(left) != 0 {
		t.Errorf("subscriptions left: %+v (had %s)", left, sub.ID)
	}
}

func TestSubscriptionsRefuseBadInput(t *testing.T) {
	subs, err := OpenSubscriptions(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	for _, c := range []struct {
		name string
		sub  Subscription
		want string
	}{
		{"http off loopback", b.subscription("http://push.example.com/x"), "endpoint"},
		{"not a URL", b.subscription("::"), "endpoint"},
		{"file URL", b.subscription("file:///etc/passwd"), "endpoint"},
		{"short key", Subscription{Endpoint: "https://push.example.com/x", P256dh: "AAAA", Auth: b.subscription("").Auth}, "p256dh"},
		{"bad auth", Subscription{Endpoint: "https://push.example.com/x", P256dh: b.subscription("").P256dh, Auth: "!!"}, "auth"},
		{"unknown kind", b.subscription("https://push.example.com/x", "everything"), "unknown kind"},
	} {
		if _, err := subs.Add(c.sub); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %s", c.name, err, c.want)
		}
	}
	if _, err := subs.SetKinds("no-such-id", []Kind{KindError}); err != ErrNoSubscription {
		t.Errorf("SetKinds on a revoked subscription: %v", err)
	}
	s, err := subs.Add(b.subscription("https://push.example.com/x"))
	if err != nil || len(s.Kinds) != len(Kinds) {
		t.Fatalf("add: %+v, %v", s, err)
	}
	if s, err = subs.SetKinds(s.ID, []Kind{KindQuestion}); err != nil || len(s.Kinds) != 1 {
		t.Fatalf("set kinds: %+v, %v", s, err)
	}
	reopened, err := OpenSubscriptions(filepath.Dir(subs.path))
	if err != nil || len(reopened.List()) != 1 || reopened.List()[0].Kinds[0] != KindQuestion {
		t.Fatalf("reopened: %+v, %v", reopened.List(), err)
	}
	if info, err := os.Stat(subs.path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("subscriptions file %v, %v: want mode 0600", info, err)
	}
}
