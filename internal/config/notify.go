package config

// The [notify] table: where notifications go (issue 28). The notify package
// builds its sinks from what is checked here; this package knows only the
// names of the kinds, kept equal to notify's by a test there.

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// notifyKey is the TOML key of the notification settings.
const notifyKey = "notify"

// NotifyKinds are the kinds of notification a sink may ask for.
var NotifyKinds = []string{"permission", "question", "turn_completed", "error", "stall", "limit"}

// Notify is the [notify] table.
type Notify struct {
	// PermissionWait: a request someone present leaves unanswered this long
	// is notified anyway. Zero: the notify package's default.
	PermissionWait time.Duration
	// ConsoleURL is the console's address as the user's phone reaches it
	// (for the links in notifications); empty: the address cdevd listens on.
	ConsoleURL string
	Webhooks   []WebhookSink
	Ntfy       []NtfySink
}

// SinkCommon is what every sink declares.
type SinkCommon struct {
	Name    string        // unique among sinks; default "<type>-<n>"
	Kinds   []string      // default: every kind
	Timeout time.Duration // one attempt; zero: the notify package's default
	Retries int           // after the first attempt; -1 for none, 0 the default
}

// WebhookSink is a [[notify.webhook]].
type WebhookSink struct {
	SinkCommon
	URL string
	// Secret signs each body (HMAC-SHA256); never printed.
	Secret Secret
}

// NtfySink is a [[notify.ntfy]].
type NtfySink struct {
	SinkCommon
	Server string // default https://ntfy.sh
	Topic  string
	Token  Secret // an access token for a protected topic; may be empty
}

// Secret is a string that prints and logs redacted.
type Secret string

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "<redacted>"
}

// GoString redacts under %#v too.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// MarshalText redacts in JSON and logs.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

type notifyEntry struct {
	PermissionWait string         `toml:"permission_wait"`
	ConsoleURL     string         `toml:"console_url"`
	Webhooks       []webhookEntry `toml:"webhook"`
	Ntfy           []ntfyEntry    `toml:"ntfy"`
}

type sinkEntry struct {
	Name    string   `toml:"name"`
	Kinds   []string `toml:"kinds"`
	Timeout string   `toml:"timeout"`
	Retries *int     `toml:"retries"`
}

type webhookEntry struct {
	sinkEntry `toml:",inline"`
	URL       string `toml:"url"`
	Secret    string `toml:"secret"`
}

type ntfyEntry struct {
	sinkEntry `toml:",inline"`
	Server    string `toml:"server"`
	Topic     string `toml:"topic"`
	Token     string `toml:"token"`
}

// ntfyTopic is what ntfy accepts as a topic name.
var ntfyTopic = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// minSecret is the shortest webhook secret accepted: a short one could be
// guessed, and a receiver trusts whatever it signs.
const minSecret = 16

// checkNotify checks the [notify] table. fail reports a problem at a key
// path such as ["notify", "webhook", "#2", "url"] (an element by "#n").
func checkNotify(e *notifyEntry, fail func(key []string, format string, args ...any)) Notify {
	var n Notify
	if e == nil {
		return n
	}
	if e.PermissionWait != "" {
		d, err := time.ParseDuration(e.PermissionWait)
		switch {
		case err != nil:
			fail([]string{notifyKey, "permission_wait"}, "%q is not a duration, like \"60s\" or \"2m\"", e.PermissionWait)
		case d < time.Second || d > time.Hour:
			fail([]string{notifyKey, "permission_wait"}, "%s is out of range: from 1s to 1h", d)
		default:
			n.PermissionWait = d
		}
	}
	if e.ConsoleURL != "" {
		if problem := httpURL(e.ConsoleURL); problem != "" {
			fail([]string{notifyKey, "console_url"}, "%s", problem)
		}
		n.ConsoleURL = e.ConsoleURL
	}
	names := map[string]string{} // name → where it was declared
	common := func(kind string, i int, s sinkEntry) SinkCommon {
		at := func(key string) []string { return []string{notifyKey, kind, fmt.Sprintf("#%d", i+1), key} }
		c := SinkCommon{Name: s.Name, Kinds: s.Kinds}
		if c.Name == "" {
			c.Name = fmt.Sprintf("%s-%d", kind, i+1)
		} else if !idPattern.MatchString(c.Name) {
			fail(at("name"), "%q is not a valid name: want a lowercase letter, then up to 31 of a-z, 0-9, '_' and '-'", c.Name)
		} else if c.Name == "webpush" {
			fail(at("name"), "\"webpush\" is the console's Web Push sink; choose another name")
		}
		if first, dup := names[c.Name]; dup {
			fail(at("name"), "%q is already the name of %s", c.Name, first)
		}
		names[c.Name] = fmt.Sprintf("notify.%s #%d", kind, i+1)
		if s.Kinds == nil {
			c.Kinds = slices.Clone(NotifyKinds)
		} else if len(s.Kinds) == 0 {
			fail(at("kinds"), "empty: list the kinds wanted (%s), or leave kinds out for all", strings.Join(NotifyKinds, ", "))
		}
		for _, k := range s.Kinds {
			if !slices.Contains(NotifyKinds, k) {
				fail(at("kinds"), "unknown kind %q: want some of %s", k, strings.Join(NotifyKinds, ", "))
			}
		}
		if s.Timeout != "" {
			d, err := time.ParseDuration(s.Timeout)
			switch {
			case err != nil:
				fail(at("timeout"), "%q is not a duration, like \"10s\"", s.Timeout)
			case d <= 0 || d > 5*time.Minute:
				fail(at("timeout"), "%s is out of range: more than 0, at most 5m", d)
			default:
				c.Timeout = d
			}
		}
		if s.Retries != nil {
			switch r := *s.Retries; {
			case r < 0 || r > 10:
				fail(at("retries"), "%d is out of range: from 0 to 10", r)
			case r == 0:
				c.Retries = -1
			default:
				c.Retries = r
			}
		}
		return c
	}
	for i, w := range e.Webhooks {
		at := func(key string) []string { return []string{notifyKey, "webhook", fmt.Sprintf("#%d", i+1), key} }
		s := WebhookSink{SinkCommon: common("webhook", i, w.sinkEntry), URL: w.URL, Secret: Secret(w.Secret)}
		if w.URL == "" {
			fail(at("url"), "missing; give the http or https URL to POST to")
		} else if problem := httpURL(w.URL); problem != "" {
			fail(at("url"), "%s", problem)
		}
		if len(w.Secret) < minSecret {
			// The value is not echoed: it is a secret.
			fail(at("secret"), "missing or shorter than %d characters; make one with `openssl rand -hex 32`", minSecret)
		}
		n.Webhooks = append(n.Webhooks, s)
	}
	for i, f := range e.Ntfy {
		at := func(key string) []string { return []string{notifyKey, "ntfy", fmt.Sprintf("#%d", i+1), key} }
		s := NtfySink{SinkCommon: common("ntfy", i, f.sinkEntry), Server: f.Server, Topic: f.Topic, Token: Secret(f.Token)}
		if s.Server == "" {
			s.Server = "https://ntfy.sh"
		} else if problem := httpURL(s.Server); problem != "" {
			fail(at("server"), "%s", problem)
		}
		if !ntfyTopic.MatchString(f.Topic) {
			fail(at("topic"), "%q is not an ntfy topic: want 1 to 64 of A-Z, a-z, 0-9, '_' and '-'", f.Topic)
		}
		n.Ntfy = append(n.Ntfy, s)
	}
	return n
}

// httpURL says what is wrong with an http(s) URL, or "".
func httpURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Sprintf("not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q: want an http or https URL", u.Scheme+":")
	case u.Host == "":
		return "no host"
	case u.User != nil:
		// Credentials in a URL end up in logs and errors; the sink's
		// secret or token is kept out of both.
		return "holds credentials (user:password@); put them in secret or token instead"
	}
	return ""
}

// hasSecrets reports whether the notify table holds a secret.
func (n Notify) hasSecrets() bool {
	for _, w := range n.Webhooks {
		if w.Secret != "" {
			return true
		}
	}
	for _, f := range n.Ntfy {
		if f.Token != "" {
			return true
		}
	}
	return false
}
