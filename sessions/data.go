package sessions

import (
	"context"
	"errors"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/workspaces"
)

// Paging bounds of history and messages.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

func (e *Engine) transcripts(ctx context.Context, method, agentType string) (runtimes.Adapter, runtimes.Transcripts, error) {
	a, err := e.reg.Route(ctx, method, agentType)
	if err != nil {
		return nil, nil, err
	}
	t := a.Transcripts()
	if t == nil {
		return nil, nil, rpc.RuntimeFailed(method, a.Info().ID, errors.New("this runtime keeps no transcripts"))
	}
	return a, t, nil
}

func limitOf(limit int) (int, error) {
	switch {
	case limit == 0:
		return DefaultLimit, nil
	case limit < 0:
		return 0, rpc.InvalidParams("limit", "must be positive")
	case limit > MaxLimit:
		return MaxLimit, nil
	}
	return limit, nil
}

// History lists a workspace's sessions of one runtime, newest first: those
// in the runtime's transcripts (including sessions run outside cdevd) and
// those cdevd runs that have no transcript yet.
func (e *Engine) History(ctx context.Context, p rpc.HistoryParams) (rpc.HistoryResult, error) {
	ws, err := e.ws.Get(p.WorkspaceID)
	if err != nil {
		return rpc.HistoryResult{}, err
	}
	a, t, err := e.transcripts(ctx, rpc.MethodHistory, p.AgentType)
	if err != nil {
		return rpc.HistoryResult{}, err
	}
	agent := a.Info().ID
	limit, err := limitOf(p.Limit)
	if err != nil {
		return rpc.HistoryResult{}, err
	}
	offset := 0
	if p.Cursor != "" {
		if offset, err = strconv.Atoi(p.Cursor); err != nil || offset < 0 {
			return rpc.HistoryResult{}, rpc.InvalidParams("cursor", "not a cursor from this server")
		}
	}
	var stored []runtimes.Summary
	dirs := e.transcriptDirs(ws)
	for _, dir := range dirs {
		list, err := t.List(ctx, dir)
		if err != nil {
			return rpc.HistoryResult{}, rpc.RuntimeFailed(rpc.MethodHistory, agent, err)
		}
		if len(dirs) == 1 {
			stored = list // no copy of the one listing; cloned before sorting
		} else {
			stored = append(stored, list...)
		}
	}
	// Newest first across directories (RFC 3339 in UTC sorts as text). One
	// directory's listing is in that order already: checking is O(n).
	if !slices.IsSortedFunc(stored, newestFirst) {
		if len(dirs) == 1 {
			stored = slices.Clone(stored)
		}
		slices.SortStableFunc(stored, newestFirst)
	}
	live := map[string]*session{}
	status := map[string]rpc.HistorySession{}
	e.mu.Lock()
	for _, s := range e.sessions {
		if s.workspaceID == ws.ID && s.agentType == agent && !s.external {
			live[s.id] = s
			s.mu.Lock()
			status[s.id] = rpc.HistorySession{SessionID: s.id, AgentType: agent, Status: s.st,
				LastUpdated: s.lastActive.UTC().Format(historyTime)}
			s.mu.Unlock()
		}
	}
	e.mu.Unlock()
	stored1 := func(st runtimes.Summary) rpc.HistorySession {
		return rpc.HistorySession{SessionID: st.SessionID, AgentType: agent, Summary: st.Summary,
			MessageCount: st.MessageCount, LastUpdated: st.LastUpdated, Branch: st.Branch, Status: rpc.StatusHistorical}
	}
	// The entries of running sessions that are stored too. Only these few
	// are made ahead: of the rest only the page's are (a history of 1,000
	// sessions built every entry and a set of every id, 80% of a call
	// whose listing was cached).
	liveStored := map[string]rpc.HistorySession{}
	if len(live) > 0 {
		for _, st := range stored {
			s, ok := live[st.SessionID]
			if !ok {
				continue
			}
			hs := stored1(st)
			hs.Status = status[st.SessionID].Status
			if err := s.liveSummary(ctx, t, s.dir, &hs); err != nil {
				return rpc.HistoryResult{}, rpc.RuntimeFailed(rpc.MethodHistory, agent, err)
			}
			liveStored[st.SessionID] = hs
		}
	}
	var fresh []rpc.HistorySession // running, nothing stored yet: newest of all
	for id, s := range live {
		if _, ok := liveStored[id]; !ok {
			hs := status[id]
			if err := s.liveSummary(ctx, t, s.dir, &hs); err != nil {
				return rpc.HistoryResult{}, rpc.RuntimeFailed(rpc.MethodHistory, agent, err)
			}
			fresh = append(fresh, hs)
		}
	}
	sort.Slice(fresh, func(i, j int) bool { return fresh[i].LastUpdated > fresh[j].LastUpdated })
	// The page of fresh followed by stored.
	total := len(fresh) + len(stored)
	res := rpc.HistoryResult{Sessions: []rpc.HistorySession{}, Total: total}
	if offset < total {
		end := min(offset+limit, total)
		res.Sessions = make([]rpc.HistorySession, 0, end-offset)
		for i := offset; i < end; i++ {
			if i < len(fresh) {
				res.Sessions = append(res.Sessions, fresh[i])
				continue
			}
			st := stored[i-len(fresh)]
			if hs, ok := liveStored[st.SessionID]; ok {
				res.Sessions = append(res.Sessions, hs)
			} else {
				res.Sessions = append(res.Sessions, stored1(st))
			}
		}
		if end < total {
			res.NextCursor = strconv.Itoa(end)
		}
	}
	if e.cfg.TurnStore != nil {
		// Only the page's: a count is a map lookup once the store has read
		// its records.
		for i := range res.Sessions {
			res.Sessions[i].ChangedTurns = e.cfg.TurnStore.Changed(res.Sessions[i].SessionID)
		}
	}
	return res, nil
}

// newestFirst orders summaries by LastUpdated, newest first.
func newestFirst(a, b runtimes.Summary) int { return strings.Compare(b.LastUpdated, a.LastUpdated) }

// Messages pages a session's transcript.
func (e *Engine) Messages(ctx context.Context, p rpc.MessagesParams) (rpc.MessagesResult, error) {
	began := time.Now()
	ws, err := e.ws.Get(p.WorkspaceID)
	if err != nil {
		return rpc.MessagesResult{}, err
	}
	if err := validID(p.SessionID); err != nil {
		return rpc.MessagesResult{}, err
	}
	a, t, err := e.transcripts(ctx, rpc.MethodMessages, p.AgentType)
	if err != nil {
		return rpc.MessagesResult{}, err
	}
	agent := a.Info().ID
	limit, err := limitOf(p.Limit)
	if err != nil {
		return rpc.MessagesResult{}, err
	}
	if p.Offset < 0 {
		return rpc.MessagesResult{}, rpc.InvalidParams("offset", "must not be negative")
	}
	if p.Order != "" && p.Order != rpc.OrderAsc && p.Order != rpc.OrderDesc {
		return rpc.MessagesResult{}, rpc.InvalidParams("order", "asc or desc")
	}
	dir := ws.Path
	if s := e.lookup(p.SessionID); s != nil && s.workspaceID == ws.ID {
		dir = s.dir
	} else if found, ok := e.findTranscript(ctx, a, ws, p.SessionID); ok {
		dir = found
	}
	var msgs []rpc.Message
	var total int
	if s := e.lookup(p.SessionID); s != nil && s.workspaceID == ws.ID && !s.external {
		msgs, total, err = s.liveMessages(ctx, t, dir, p.Offset, limit, p.Order == rpc.OrderDesc)
	} else {
		msgs, total, err = t.Messages(ctx, dir, p.SessionID, p.Offset, limit, p.Order == rpc.OrderDesc)
	}
	if errors.Is(err, runtimes.ErrNoSession) || errors.Is(err, os.ErrNotExist) {
		if s := e.lookup(p.SessionID); s != nil && s.workspaceID == ws.ID {
			msgs, total, err = nil, 0, nil // running, nothing written yet
		} else {
			return rpc.MessagesResult{}, rpc.SessionNotFound(p.SessionID)
		}
	}
	if err != nil {
		return rpc.MessagesResult{}, rpc.RuntimeFailed(rpc.MethodMessages, agent, err)
	}
	page := make([]rpc.PagedMessage, len(msgs))
	for i, m := range msgs {
		m.SessionID = p.SessionID
		// A page is contiguous from offset in its order, so each message's
		// position follows from where the page starts.
		pos := p.Offset + i
		if p.Order == rpc.OrderDesc {
			pos = total - 1 - pos
		}
		page[i] = m.Paged(pos)
	}
	return rpc.MessagesResult{SessionID: p.SessionID, Messages: page, Total: total, Limit: limit,
		Offset: p.Offset, HasMore: p.Offset+len(msgs) < total,
		QueryTimeMS: float64(time.Since(began).Microseconds()) / 1000}, nil
}

// Delete moves a session's transcript to the trash. It is refused while the
// session's process runs; the transcript is never destroyed.
func (e *Engine) Delete(ctx context.Context, p rpc.SessionRefParams) (rpc.DeleteResult, error) {
	ws, err := e.ws.Get(p.WorkspaceID)
	if err != nil {
		return rpc.DeleteResult{}, err
	}
	if err := validID(p.SessionID); err != nil {
		return rpc.DeleteResult{}, err
	}
	a, t, err := e.transcripts(ctx, rpc.MethodDelete, p.AgentType)
	if err != nil {
		return rpc.DeleteResult{}, err
	}
	agent := a.Info().ID
	if s := e.lookup(p.SessionID); s != nil && !s.external {
		if s.isRunning() || s.status() == rpc.StatusStarting {
			return rpc.DeleteResult{}, rpc.SessionBusy(p.SessionID, "stop the session before deleting it")
		}
	}
	dir, ok := e.findTranscript(ctx, a, ws, p.SessionID)
	if !ok {
		return rpc.DeleteResult{}, rpc.SessionNotFound(p.SessionID)
	}
	if err := t.Trash(ctx, dir, p.SessionID, e.bin(agent, ws.ID)); err != nil {
		if errors.Is(err, runtimes.ErrNoSession) {
			return rpc.DeleteResult{}, rpc.SessionNotFound(p.SessionID)
		}
		return rpc.DeleteResult{}, rpc.RuntimeFailed(rpc.MethodDelete, agent, err)
	}
	if s := e.lookup(p.SessionID); s != nil {
		if s.external {
			s.closeTail()
		}
		e.forget(s)
	}
	e.mu.Lock()
	if e.active[ws.ID].sessionID == p.SessionID {
		delete(e.active, ws.ID)
	}
	e.mu.Unlock()
	e.dropQueue(p.SessionID) // its prompts would run in a session that is gone
	return rpc.DeleteResult{Status: "deleted", WorkspaceID: ws.ID, SessionID: p.SessionID}, nil
}

// tailExternal follows a session that cdevd does not run (one in a
// terminal, say) through its transcript, numbering the messages appended
// to it like any session's events. The tail ends with its last watcher.
func (e *Engine) tailExternal(ctx context.Context, ws workspaces.Workspace, id, agentType string) (*session, error) {
	a, err := e.reg.Route(ctx, rpc.MethodWatch, agentType)
	if err != nil {
		return nil, err
	}
	t := a.Transcripts()
	dir, ok := e.findTranscript(ctx, a, ws, id)
	if t == nil || !ok {
		return nil, rpc.SessionNotFound(id)
	}
	s := e.newSession(id, ws, a, StartOptions{})
	s.external = true
	s.st = rpc.StatusHistorical
	e.mu.Lock()
	if other, ok := e.sessions[id]; ok {
		e.mu.Unlock()
		return other, nil
	}
	e.sessions[id] = s
	e.mu.Unlock()
	s.dir = dir
	tail, err := t.Tail(context.WithoutCancel(ctx), dir, id, func(m rpc.Message) {
		m.SessionID = id
		s.mu.Lock()
		s.lastActive = time.Now()
		s.emitMessageLocked(m)
		s.mu.Unlock()
	})
	if err != nil {
		e.forget(s)
		s.log.Warn("tail transcript", zap.Error(err))
		var ferr *fswatch.Error
		if errors.As(err, &ferr) {
			return nil, watchRefused(err, "session_id", id)
		}
		return nil, rpc.RuntimeFailed(rpc.MethodWatch, a.Info().ID, err)
	}
	s.mu.Lock()
	s.tail = tail
	s.mu.Unlock()
	return s, nil
}
