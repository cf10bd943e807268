package notify

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is what a notification is about; sinks choose the kinds they want.
type Kind string

// The kinds of notification.
const (
	KindPermission    Kind = "permission"     // the agent asks to run a tool
	KindQuestion      Kind = "question"       // the agent asks the user a question
	KindTurnCompleted Kind = "turn_completed" // a turn finished
	KindError         Kind = "error"          // a turn failed, or the CLI crashed
	KindStall         Kind = "stall"          // the CLI went silent mid-turn
	KindLimit         Kind = "limit"          // a plan's rate-limit window is nearly used up, or reached
	// KindTest is what notify/test and `cdevd notify test` send; every sink
	// takes it whatever its kinds.
	KindTest Kind = "test"
	// KindCoalesced stands for notifications a full queue could not keep
	// (a flood): one says how many there were.
	KindCoalesced Kind = "coalesced"
)

// Kinds are the kinds a sink can ask for, in the order docs list them.
var Kinds = []Kind{KindPermission, KindQuestion, KindTurnCompleted, KindError, KindStall, KindLimit}

// ValidKind reports whether k is a kind a sink can ask for.
func ValidKind(k string) bool {
	for _, v := range Kinds {
		if string(v) == k {
			return true
		}
	}
	return false
}

// Actions of a notification.
const (
	ActionNotify   = "notify"
	ActionWithdraw = "withdraw" // the request was answered or cancelled
)

// Notification is what sinks send. Its JSON is the webhook's body.
type Notification struct {
	// ID is the same for a request's notification and its withdrawal, so
	// that a receiver can pair them (and Web Push can replace by tag).
	ID     string `json:"id"`
	Kind   Kind   `json:"kind"`
	Action string `json:"action"`
	Title  string `json:"title"`
	Body   string `json:"body"`

	Machine     string `json:"machine"`
	WorkspaceID string `json:"workspace_id,omitempty"`
	Workspace   string `json:"workspace,omitempty"`
	Runtime     string `json:"runtime,omitempty"`
	SessionID   string `json:"session_id,omitempty"`
	RequestID   string `json:"request_id,omitempty"`
	// URL opens the session in the console.
	URL  string    `json:"url,omitempty"`
	Time time.Time `json:"time"`
}

// Lengths past which text is cut: a notification is read at a glance, and
// a long command or question is in the console one tap away.
const (
	maxTitle = 80
	maxBody  = 240
)

// secretAssignment finds values given to names that say they are secret
// (TOKEN=…, --password …, "api_key": "…"), and bearer credentials.
var secretAssignment = regexp.MustCompile(
	`(?i)((?:[a-z0-9_.-]*(?:token|secret|passw(?:or)?d|api[_-]?key|credential|auth)[a-z0-9_.-]*)["']?\s*(?:[:=]|\s)\s*["']?)([^\s"',;&|]+)` +
		`|(bearer\s+)([^\s"',;&|]+)`)

// opaqueRun finds long runs that look like keys or tokens: 24 or more
// characters of a token alphabet mixing letters and digits.
var opaqueRun = regexp.MustCompile(`[A-Za-z0-9+/_=-]{24,}`)

// scrub hides what looks like a secret. It cannot know every secret a
// command may carry; it hides the common shapes, and Cut bounds the rest.
func scrub(s string) string {
	s = secretAssignment.ReplaceAllStringFunc(s, func(m string) string {
		sub := secretAssignment.FindStringSubmatch(m)
		if sub[1] != "" {
			return sub[1] + "…"
		}
		return sub[3] + "…"
	})
	return opaqueRun.ReplaceAllStringFunc(s, func(m string) string {
		if strings.ContainsAny(m, "0123456789") && strings.IndexFunc(m, isLetter) >= 0 && !strings.Contains(m, "/") {
			return m[:4] + "…"
		}
		return m
	})
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// cut shortens s to at most n runes on one line, marking the cut.
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// tidy makes text fit for a notification: no secret, one line, short.
func tidy(s string, n int) string { return cut(scrub(s), n) }
