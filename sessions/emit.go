package sessions

// From the adapter's events to the session's: each runtime event becomes
// wire events with the next seq, kept for replay and sent to watchers.

import (
	"cmp"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// onEvent turns an adapter event into session events.
func (s *session) onEvent(gen int, ev runtimes.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	s.lastActive = time.Now()
	switch ev := ev.(type) {
	case runtimes.MessageDelta:
		s.emitLocked(rpc.EventMessageDelta, func(h rpc.EventHeader) any {
			return rpc.MessageDeltaEvent{EventHeader: h, MessageID: ev.MessageID, Phase: ev.Phase, Text: ev.Text}
		})
	case runtimes.MessageCompleted:
		ev.Message.SessionID = s.id
		s.emitMessageLocked(ev.Message)
	case runtimes.ActivityChanged:
		if ev.Retry != nil {
			s.emitRetryLocked(ev.Activity, *ev.Retry)
			return
		}
		s.setActivityLocked(ev.Activity)
	case runtimes.PromptRequested:
		s.addPromptLocked(ev)
	case runtimes.PromptCancelled:
		s.resolveLocked(ev.RequestID, "server", "cancelled")
	case runtimes.RateLimitsUpdated:
		s.onRateLimitsLocked(ev)
	case runtimes.ContextUpdated:
		s.onContextLocked(ev)
	case runtimes.TurnCompleted:
		if !s.endTurnLocked() {
			return
		}
		s.emitLocked(rpc.EventTurnCompleted, func(h rpc.EventHeader) any {
			return rpc.TurnCompletedEvent{EventHeader: h, Usage: ev.Usage, CostUSD: ev.CostUSD,
				StopReason: ev.StopReason, DurationMS: ev.DurationMS}
		})
		s.afterTurnLocked("")
	case runtimes.TurnFailed:
		if !s.endTurnLocked() {
			s.log.Info("runtime error outside a turn", zap.String("code", ev.Code), zap.String("message", ev.Message))
			return
		}
		s.emitLocked(rpc.EventError, func(h rpc.EventHeader) any {
			return rpc.ErrorEvent{EventHeader: h, Code: ev.Code, Message: ev.Message}
		})
		s.afterTurnLocked(cmp.Or(ev.Message, ev.Code, "the turn failed"))
	case runtimes.ProcessExited:
		s.exitedLocked(ev)
		s.armQuietLocked()
	}
}

// endTurnLocked closes the open turn; false if none was open (so that a
// second terminal event for one turn is never sent).
func (s *session) endTurnLocked() bool {
	if !s.turnOpen || s.stopping {
		return false
	}
	s.turnOpen = false
	s.snapshotAfterTurnLocked()
	s.setActivityLocked(rpc.ActivityIdle)
	s.armIdleLocked()
	return true
}

func (s *session) setActivityLocked(a rpc.Activity) {
	if s.activity == a {
		return
	}
	s.activity = a
	state := rpc.PtyState(a)
	s.emitLocked(rpc.EventState, func(h rpc.EventHeader) any {
		return rpc.StateEvent{EventHeader: h, State: state,
			WaitingForInput: a == rpc.ActivityPermission || a == rpc.ActivityQuestion}
	})
}

// emitRetryLocked says, in a pty_state, that the CLI retries a failed
// model call: sent for every attempt, though the activity stays the same.
func (s *session) emitRetryLocked(a rpc.Activity, r rpc.Retry) {
	s.activity = a
	s.emitLocked(rpc.EventState, func(h rpc.EventHeader) any {
		return rpc.StateEvent{EventHeader: h, State: rpc.PtyState(a), Retry: &r}
	})
}

func (s *session) emitMessageLocked(m rpc.Message) {
	if m.Message.Content == nil {
		m.Message.Content = []rpc.ContentBlock{} // required on the wire: never null
	}
	if m.UUID == "" {
		m.UUID = m.ID // clients key on uuid, as a page of messages gives it (rpc.Message.Paged)
	}
	s.rememberLocked(m)
	s.emitAtLocked(rpc.EventMessage, m.Timestamp, func(h rpc.EventHeader) any {
		return rpc.MessageEvent{EventHeader: h, ID: m.ID, Type: m.Type, UUID: m.UUID, Message: m.Message}
	})
}

// emitLocked numbers, records and fans out one event.
func (s *session) emitLocked(typ string, build func(rpc.EventHeader) any) *Event {
	return s.emitAtLocked(typ, "", build)
}

func (s *session) emitAtLocked(typ, at string, build func(rpc.EventHeader) any) *Event {
	now := time.Now().UTC()
	if at == "" {
		at = rpc.FormatTime(now)
	} else {
		at = rpc.NormalizeTime(at) // a transcript's time, in the wire's one format
	}
	s.seq++
	h := rpc.EventHeader{SessionID: s.id, WorkspaceID: s.workspaceID, AgentType: s.agentType,
		Timestamp: at, Seq: s.seq, Epoch: s.e.cfg.Epoch}
	method := rpc.EventPrefix + typ
	ev := &Event{Seq: s.seq, Type: typ, SessionID: s.id, WorkspaceID: s.workspaceID, At: now,
		Frame: notification(method, build(h)), method: method}
	s.events.add(ev)
	for w := range s.watchers {
		w.Deliver(ev)
	}
	if o := s.e.cfg.Observer; o != nil {
		o.Observe(ev)
	}
	return ev
}

// emitLifecycleLocked emits an event that workspace subscribers get too.
func (s *session) emitLifecycleLocked(typ string, build func(rpc.EventHeader) any) {
	ev := s.emitLocked(typ, build)
	watching := make(map[Watcher]struct{}, len(s.watchers))
	for w := range s.watchers {
		watching[w] = struct{}{}
	}
	s.e.publishWorkspace(ev, watching) // takes only subMu, a leaf lock

}

func (s *session) emitLifecycle(typ string, build func(rpc.EventHeader) any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitLifecycleLocked(typ, build)
}
