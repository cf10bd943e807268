package chats

// Sessions from chat files: the files of one id for a workspace, in order
// of start time (phantoms apart), and the list of a workspace's sessions.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
)

// session is one session's files for a workspace, in order of start time.
type session struct {
	id    string
	files []*view // all, phantoms included
	real  []*view // those with a user message
}

// group groups files, all of one workspace, by session id.
func group(files []history.File[*index]) map[string]*session {
	out := map[string]*session{}
	for _, f := range files {
		v := f.X.view(f.Path)
		sid := v.header.SessionID
		// An id that could not name a session safely (see
		// runtimes.ValidSessionID) is not one cdevd offers.
		if runtimes.ValidSessionID(sid) != nil {
			continue
		}
		ss := out[sid]
		if ss == nil {
			ss = &session{id: sid}
			out[sid] = ss
		}
		ss.files = append(ss.files, v)
		if v.prompt != "" {
			ss.real = append(ss.real, v)
		}
	}
	byStart := func(a, b *view) int {
		return cmp.Or(cmp.Compare(a.header.StartTime, b.header.StartTime), cmp.Compare(a.path, b.path))
	}
	for _, ss := range out {
		slices.SortFunc(ss.files, byStart)
		slices.SortFunc(ss.real, byStart)
	}
	return out
}

// count is how many messages the session has (see messages).
func (ss *session) count() int {
	if len(ss.real) == 1 {
		return ss.real[0].n
	}
	msgs, _ := ss.messages()
	return len(msgs)
}

// messages is the session's messages: those of its files with a user
// message, in order of start time, a record id seen in an earlier file
// kept where it was first (its last version wins).
func (ss *session) messages() ([]*entry, func(string) bool) {
	called := func(id string) bool {
		return slices.ContainsFunc(ss.real, func(v *view) bool { return v.called(id) })
	}
	var out []*entry
	at := map[string]int{}
	for _, v := range ss.real {
		for _, e := range v.all() {
			if i, ok := at[e.id]; ok {
				out[i] = e
				continue
			}
			at[e.id] = len(out)
			out = append(out, e)
		}
	}
	return out, called
}

// page is up to limit of the session's messages from offset, counted from
// the newest when desc, their number, and its test of a tool call's id. A
// session of one file (nearly all) makes only the page's entries.
func (ss *session) page(offset, limit int, desc bool) ([]*entry, int, func(string) bool) {
	n, at, called := ss.real[0].n, ss.real[0].entry, ss.real[0].called
	if len(ss.real) > 1 {
		var msgs []*entry
		msgs, called = ss.messages()
		n, at = len(msgs), func(j int) *entry { return msgs[j] }
	}
	from := min(offset, n)
	return pageOf(n, from, from+min(limit, n-from), desc, at), n, called // offset+limit could overflow
}

// list is the history store's List of a workspace's files (see
// history.DateTree.Group): its sessions with a user message, newest first
// (by the last write to any of their files).
func list(files []history.File[*index]) []runtimes.Summary {
	type listed struct {
		runtimes.Summary
		t int64
	}
	var out []listed
	for _, ss := range group(files) {
		if len(ss.real) == 0 {
			continue // a phantom
		}
		var t int64
		for _, v := range ss.files {
			t = max(t, v.mtime)
		}
		out = append(out, listed{runtimes.Summary{
			SessionID:    ss.id,
			Summary:      history.Shorten(strings.TrimSpace(ss.real[0].prompt), 100),
			MessageCount: ss.count(),
			LastUpdated:  time.Unix(0, t).UTC().Format(history.TimeFormat),
		}, t})
	}
	slices.SortFunc(out, func(a, b listed) int {
		return cmp.Or(cmp.Compare(b.t, a.t), cmp.Compare(a.SessionID, b.SessionID))
	})
	res := make([]runtimes.Summary, len(out))
	for i, l := range out {
		res[i] = l.Summary
	}
	return res
}

// noSession is the error for a session without a chat file in dir.
func noSession(id string) error {
	return fmt.Errorf("gemini session %s: %w", id, runtimes.ErrNoSession)
}

// session returns session id of dir (history.Tree.Files); with real, only
// if it has a user message.
func (s *Store) session(ctx context.Context, dir, id string, real bool) (*session, error) {
	files, err := s.t.Files(ctx, dir, id)
	if err != nil {
		return nil, err
	}
	ss := group(files)[id]
	if ss == nil || (real && len(ss.real) == 0) {
		return nil, noSession(id)
	}
	return ss, nil
}
