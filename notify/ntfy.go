package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"bytes"
)

// Ntfy publishes to an ntfy topic (https://ntfy.sh or a server of the
// user's), as JSON to the server's root: JSON carries any text, where
// ntfy's headers would need non-ASCII titles encoded.
//
// ntfy cannot take a message back, so a withdrawal sends nothing: a second
// message "answered" for every answer would buzz the phone for nothing.
type Ntfy struct {
	SinkConfig
	Server string // e.g. https://ntfy.sh
	Topic  string
	Token  string // an access token, for a protected topic; may be empty
	http   *http.Client
}

// NewNtfy makes an ntfy sink.
func NewNtfy(c SinkConfig, server, topic, token string) *Ntfy {
	return &Ntfy{SinkConfig: c, Server: strings.TrimRight(server, "/"), Topic: topic, Token: token, http: client(c.Timeout)}
}

func (s *Ntfy) Name() string                      { return s.SinkConfig.Name }
func (s *Ntfy) Type() string                      { return "ntfy" }
func (s *Ntfy) Wants(k Kind) bool                 { return s.wants(k) }
func (s *Ntfy) Withdraws() bool                   { return false }
func (s *Ntfy) RetryPolicy() (int, time.Duration) { return s.retryPolicy() }
func (s *Ntfy) String() string                    { return "ntfy " + s.SinkConfig.Name }
func (s *Ntfy) GoString() string                  { return s.String() }
func (s *Ntfy) Format(f fmt.State, _ rune)        { io.WriteString(f, s.String()) }

// NtfyMessage is ntfy's JSON publish format (the fields cdevd uses).
type NtfyMessage struct {
	Topic    string   `json:"topic"`
	Title    string   `json:"title,omitempty"`
	Message  string   `json:"message"`
	Priority int      `json:"priority,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Click    string   `json:"click,omitempty"`
}

// ntfyLook is each kind's priority (1 min … 5 max) and tag (ntfy shows
// tags that name an emoji as the emoji).
var ntfyLook = map[Kind]struct {
	priority int
	tag      string
}{
	KindPermission:    {4, "lock"},
	KindQuestion:      {4, "question"},
	KindTurnCompleted: {3, "white_check_mark"},
	KindError:         {4, "x"},
	KindStall:         {4, "hourglass"},
	KindLimit:         {4, "warning"},
	KindTest:          {3, "bell"},
	KindCoalesced:     {4, "bell"},
}

// Message is what Send publishes for n.
func (s *Ntfy) Message(n Notification) NtfyMessage {
	look := ntfyLook[n.Kind]
	m := NtfyMessage{Topic: s.Topic, Title: n.Title, Message: n.Body, Priority: look.priority, Click: n.URL,
		Tags: []string{look.tag, "cdevd"}}
	if n.Runtime != "" {
		m.Tags = append(m.Tags, n.Runtime)
	}
	if m.Message == "" {
		m.Message = n.Title // ntfy needs a message
	}
	return m
}

// Send publishes n once.
func (s *Ntfy) Send(ctx context.Context, n Notification) error {
	if n.Action == ActionWithdraw {
		return nil
	}
	body, err := json.Marshal(s.Message(n))
	if err != nil {
		return Permanent{err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Server+"/", bytes.NewReader(body))
	if err != nil {
		return Permanent{err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "cdevd-notify")
	if s.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.Token)
	}
	return do(s.http, req)
}
