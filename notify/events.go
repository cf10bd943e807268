package notify

// From session events (the wire's frames) to notifications.

import (
	"encoding/json"
	"fmt"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/sessions"
)

// watched are the event types the notifier reads; every other event is
// dropped by Observe before it costs anything.
var watched = map[string]bool{
	rpc.EventPermission:         true,
	rpc.EventQuestion:           true,
	rpc.EventPermissionResolved: true,
	rpc.EventTurnCompleted:      true,
	rpc.EventError:              true,
	rpc.EventSessionEnd:         true,
	rpc.EventRateLimits:         true,
}

// frame is a session event's notification, its params left for each type.
type frame struct {
	Params json.RawMessage `json:"params"`
}

// event is the part of any session event the notifier reads.
type event struct {
	rpc.EventHeader
	// pty_permission
	RequestID   string `json:"request_id"`
	ToolName    string `json:"tool_name"`
	Target      string `json:"target"`
	Description string `json:"description"`
	// question
	Questions []rpc.Question `json:"questions"`
	// pty_permission_resolved
	Decision string `json:"decision"`
	// error
	Code    string `json:"code"`
	Message string `json:"message"`
	// session_end
	Reason   string `json:"reason"`
	ExitCode *int   `json:"exit_code"`
	// rate_limits
	Windows []rpc.RateLimitWindow `json:"windows"`
}

func decode(ev *sessions.Event) (event, error) {
	var f frame
	if err := json.Unmarshal(ev.Frame, &f); err != nil {
		return event{}, err
	}
	var e event
	if err := json.Unmarshal(f.Params, &e); err != nil {
		return event{}, err
	}
	return e, nil
}

// describe fills a notification's text for event e of type typ.
func describe(typ string, e event, n *Notification) {
	who := n.Runtime
	switch typ {
	case rpc.EventPermission:
		n.Kind = KindPermission
		tool := e.ToolName
		if tool == "" {
			tool = "a tool"
		}
		n.Title = tidy(fmt.Sprintf("%s asks to use %s", who, tool), maxTitle)
		what := e.Target
		if what == "" {
			what = e.Description
		}
		n.Body = tidy(what, maxBody)
	case rpc.EventQuestion:
		n.Kind = KindQuestion
		n.Title = tidy(who+" asks a question", maxTitle)
		if len(e.Questions) > 0 {
			n.Body = tidy(e.Questions[0].Question, maxBody)
		}
	case rpc.EventTurnCompleted:
		n.Kind = KindTurnCompleted
		n.Title = tidy(who+" finished its turn", maxTitle)
	case rpc.EventError:
		n.Kind = KindError
		switch e.Code {
		case runtimes.CodeStallTimeout:
			n.Kind = KindStall
			n.Title = tidy(who+" stalled", maxTitle)
		case runtimes.CodeCLIExited:
			n.Title = tidy(who+" crashed during its turn", maxTitle)
		default:
			n.Title = tidy(who+": the turn failed ("+e.Code+")", maxTitle)
		}
		n.Body = tidy(e.Message, maxBody)
	case rpc.EventSessionEnd:
		n.Kind = KindError
		code := 0
		if e.ExitCode != nil {
			code = *e.ExitCode
		}
		n.Title = tidy(fmt.Sprintf("%s exited with code %d", who, code), maxTitle)
	}
	where := n.Workspace
	if n.Machine != "" {
		where += " on " + n.Machine
	}
	where = cut(where, maxBody/3)
	if n.Body == "" {
		n.Body = tidy(where, maxBody)
	} else {
		n.Body = tidy(n.Body, maxBody-len(where)-3) + " · " + where
	}
}
