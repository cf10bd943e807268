package notify

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"
	"go.uber.org/zap"
)

// DefaultPushSubject is the VAPID "sub" claim when the user names none:
// push services want a way to reach whoever sends.
const DefaultPushSubject = "https://github.com/cdevd/cdevd"

// PushPayload is what the console's service worker receives, decrypted.
type PushPayload struct {
	// Tag is the notification's id: a withdrawal closes the notification
	// shown with the same tag.
	Tag    string `json:"tag"`
	Action string `json:"action"`
	Kind   Kind   `json:"kind"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	URL    string `json:"url,omitempty"`
	// The session a click opens, for a console tab already open (it has
	// the token a new window would not).
	WorkspaceID string `json:"workspace_id,omitempty"`
	SessionID   string `json:"session_id,omitempty"`
	Runtime     string `json:"runtime,omitempty"`
}

// WebPush sends to every browser subscription that wants the kind,
// encrypted (RFC 8291, aes128gcm) and signed with cdevd's VAPID key
// (RFC 8292) by github.com/SherClockHolmes/webpush-go.
type WebPush struct {
	Subs    *Subscriptions
	Keys    VAPID
	Subject string
	Log     *zap.Logger
	http    *http.Client
}

// NewWebPush makes the Web Push sink.
func NewWebPush(subs *Subscriptions, keys VAPID, subject string, log *zap.Logger) *WebPush {
	if subject == "" {
		subject = DefaultPushSubject
	}
	if log == nil {
		log = zap.NewNop()
	}
	return &WebPush{Subs: subs, Keys: keys, Subject: subject, Log: log, http: client(DefaultTimeout)}
}

func (w *WebPush) Name() string    { return "webpush" }
func (w *WebPush) Type() string    { return "webpush" }
func (w *WebPush) Withdraws() bool { return true }
func (w *WebPush) String() string  { return "webpush" }

// Wants is true when some subscription wants k.
func (w *WebPush) Wants(k Kind) bool {
	for _, s := range w.Subs.List() {
		if s.wants(k) {
			return true
		}
	}
	return false
}

// Send pushes n to every subscription that wants its kind. A subscription
// the push service says is gone (404, 410) is forgotten. It fails only if
// every push failed, so that a retry does not repeat the ones delivered.
func (w *WebPush) Send(ctx context.Context, n Notification) error {
	payload, err := json.Marshal(PushPayload{Tag: n.ID, Action: n.Action, Kind: n.Kind, Title: n.Title, Body: n.Body, URL: n.URL,
		WorkspaceID: n.WorkspaceID, SessionID: n.SessionID, Runtime: n.Runtime})
	if err != nil {
		return Permanent{err}
	}
	// The Topic header lets a push service replace a message not yet
	// delivered (the withdrawal replaces its notification): 32 base64url
	// characters at most.
	sum := sha256.Sum256([]byte(n.ID))
	topic := base64.RawURLEncoding.EncodeToString(sum[:24])
	urgency := webpush.UrgencyHigh
	if n.Action == ActionWithdraw || n.Kind == KindTurnCompleted {
		urgency = webpush.UrgencyNormal
	}
	var errs []error
	sent := 0
	for _, s := range w.Subs.List() {
		if n.Kind != KindTest && n.Kind != KindCoalesced && !s.wants(n.Kind) {
			continue
		}
		err := w.push(ctx, s, payload, topic, urgency)
		if err == nil {
			sent++
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %w", s.ID, err))
	}
	if sent == 0 && len(errs) > 0 {
		return errors.Join(errs...)
	}
	if sent == 0 && n.Kind == KindTest {
		return Permanent{errors.New("no browser has subscribed: turn notifications on in the console")}
	}
	for _, err := range errs {
		w.Log.Warn("push not delivered to one subscription", zap.Error(err))
	}
	return nil
}

func (w *WebPush) push(ctx context.Context, s Subscription, payload []byte, topic string, urgency webpush.Urgency) error {
	resp, err := webpush.SendNotificationWithContext(ctx, payload,
		&webpush.Subscription{Endpoint: s.Endpoint, Keys: webpush.Keys{P256dh: s.P256dh, Auth: s.Auth}},
		&webpush.Options{HTTPClient: w.http, Subscriber: w.Subject, VAPIDPublicKey: w.Keys.Public,
			VAPIDPrivateKey: w.Keys.Private, TTL: int((12 * time.Hour).Seconds()), Topic: topic, Urgency: urgency,
			RecordSize: 2048})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusNotFound || code == http.StatusGone:
		// The browser unsubscribed or the subscription expired: it will
		// never work again.
		if _, err := w.Subs.Remove(s.ID); err != nil {
			w.Log.Warn("expired push subscription not removed", zap.Error(err))
		}
		return Permanent{fmt.Errorf("the push service says the subscription is gone (%s); removed", resp.Status)}
	case code >= 300 && code < 400:
		return Permanent{fmt.Errorf("answered %s: redirects are not followed", resp.Status)}
	default:
		return fmt.Errorf("answered %s", resp.Status)
	}
}
