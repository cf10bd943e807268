package notify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"
)

// Webhook headers.
const (
	// SignatureHeader carries "sha256=" and the hex HMAC-SHA256 of the body
	// under the sink's secret.
	SignatureHeader = "X-Cdevd-Signature-256"
	// ActionHeader is the body's action (notify or withdraw), for routing
	// without parsing.
	ActionHeader = "X-Cdevd-Action"
)

// DefaultTimeout bounds one attempt of a sink's request.
const DefaultTimeout = 10 * time.Second

// SinkConfig is what every sink is declared with.
type SinkConfig struct {
	Name  string
	Kinds []Kind
	// Timeout bounds one attempt (DefaultTimeout when zero).
	Timeout time.Duration
	// Retries after the first attempt; Backoff the first wait, doubled for
	// each retry after. Zero values take 3 and 500 ms; Retries < 0 is none.
	Retries int
	Backoff time.Duration
}

func (c SinkConfig) wants(k Kind) bool { return slices.Contains(c.Kinds, k) }

func (c SinkConfig) retryPolicy() (int, time.Duration) {
	r, b := c.Retries, c.Backoff
	if r == 0 {
		r = defaultRetries
	}
	if r < 0 {
		r = 0
	}
	if b <= 0 {
		b = defaultBackoff
	}
	return r, b
}

// client is an HTTP client that follows no redirect: a webhook that moved
// must be fixed in the configuration, not followed (a redirect could send a
// signed body somewhere the user never named).
func client(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// Webhook POSTs each notification as JSON, signed.
type Webhook struct {
	SinkConfig
	URL    string
	Secret string
	http   *http.Client
}

// NewWebhook makes a webhook sink.
func NewWebhook(c SinkConfig, url, secret string) *Webhook {
	return &Webhook{SinkConfig: c, URL: url, Secret: secret, http: client(c.Timeout)}
}

func (w *Webhook) Name() string                      { return w.SinkConfig.Name }
func (w *Webhook) Type() string                      { return "webhook" }
func (w *Webhook) Wants(k Kind) bool                 { return w.wants(k) }
func (w *Webhook) Withdraws() bool                   { return true }
func (w *Webhook) RetryPolicy() (int, time.Duration) { return w.retryPolicy() }
func (w *Webhook) String() string                    { return "webhook " + w.SinkConfig.Name }
func (w *Webhook) GoString() string                  { return w.String() }
func (w *Webhook) Format(f fmt.State, _ rune)        { io.WriteString(f, w.String()) }
func (w *Webhook) MarshalJSON() ([]byte, error)      { return json.Marshal(w.String()) }
func (w *Webhook) sign(body []byte) string           { return Sign(w.Secret, body) }

// request is the signed POST of body.
func (w *Webhook) request(ctx context.Context, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return nil, Permanent{err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "cdevd-notify")
	req.Header.Set(SignatureHeader, w.sign(body))
	return req, nil
}

// Sign is the signature header's value for body under secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Send POSTs n once.
func (w *Webhook) Send(ctx context.Context, n Notification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return Permanent{err}
	}
	req, err := w.request(ctx, body)
	if err != nil {
		return err
	}
	req.Header.Set(ActionHeader, n.Action)
	return do(w.http, req)
}

// do sends req and judges the answer: 2xx is done; 408, 429 and 5xx are
// worth another try; a redirect or any other 4xx is not.
func do(c *http.Client, req *http.Request) error {
	resp, err := c.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap() // the cause, without the URL (which may hold a topic or key)
		}
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return nil
	case code >= 300 && code < 400:
		return Permanent{fmt.Errorf("answered %s: redirects are not followed; put the final URL in config.toml", resp.Status)}
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		return fmt.Errorf("answered %s", resp.Status)
	default:
		return Permanent{fmt.Errorf("answered %s", resp.Status)}
	}
}
