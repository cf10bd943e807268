package chats

// Sessions from chat files: the files of one id for a workspace, in order
// of start time (phantoms apart), and the list of a workspace's sessions.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/history"
)

// sessionFile is one file of a session.
type sessionFile struct {
	path string
	v    *view
}

// session is one session's files for a workspace, in order of start time.
type session struct {
	id    string
	files []sessionFile // all, phantoms included
	real  []sessionFile // those with a user message
}

// group groups files, all of one workspace, by session id; with id set,
// only that session's.
func group(files []history.File[*index], id string) map[string]*session {
	out := map[string]*session{}
	for _, f := range files {
		v := f.X.view(f.Path)
		sid := v.header.SessionID
		// An id that could not name a session safely (see
		// runtimes.ValidSessionID) is not one cdevd offers.
		if runtimes.ValidSessionID(sid) != nil || (id != "" && sid != id) {
			continue
		}
		ss := out[sid]
		if ss == nil {
			ss = &session{id: sid}
			out[sid] = ss
		}
		sf := sessionFile{f.Path, v}
		ss.files = append(ss.files, sf)
		if v.prompt != "" {
			ss.real = append(ss.real, sf)
		}
	}
	for _, ss := range out {
		byStart := func(a, b sessionFile) int {
			return cmp.Or(cmp.Compare(a.v.header.StartTime, b.v.header.StartTime), cmp.Compare(a.path, b.path))
		}
		slices.SortFunc(ss.files, byStart)
		slices.SortFunc(ss.real, byStart)
	}
	return out
}

// count is how many messages the session has (see messages).
func (ss *session) count() int {
	if len(ss.real) == 1 {
		return ss.real[0].v.n
	}
	msgs, _ := ss.messages()
	return len(msgs)
}

// messages is the session's messages: those of its files with a user
// message, in order of start time, a record id seen in an earlier file
// kept where it was first (its last version wins).
func (ss *session) messages() ([]*entry, func(string) bool) {
	if len(ss.real) == 1 {
		v := ss.real[0].v
		return v.all(), v.called
	}
	called := func(id string) bool {
		for _, f := range ss.real {
			if f.v.called(id) {
				return true
			}
		}
		return false
	}
	var out []*entry
	at := map[string]int{}
	for _, f := range ss.real {
		for _, e := range f.v.all() {
			id := e.id
			if i, ok := at[id]; ok {
				out[i] = e
				continue
			}
			at[id] = len(out)
			out = append(out, e)
		}
	}
	return out, called
}

// lastUpdated is the newest modification time of the session's files.
func (ss *session) lastUpdated() int64 {
	var t int64
	for _, f := range ss.files {
		t = max(t, f.v.mtime)
	}
	return t
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
	for _, ss := range group(files, "") {
		if len(ss.real) == 0 {
			continue // a phantom
		}
		t := ss.lastUpdated()
		out = append(out, listed{runtimes.Summary{
			SessionID:    ss.id,
			Summary:      history.Shorten(strings.TrimSpace(ss.real[0].v.prompt), 100),
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

// session returns session id of dir; with real, only if it has a user
// message. Only the chat files whose name holds the id's first eight
// characters are read, and of those in another project's folder only the
// first line unless it names dir's project.
func (s *Store) session(ctx context.Context, dir, id string, real bool) (*session, error) {
	if err := runtimes.ValidSessionID(id); err != nil {
		return nil, err
	}
	paths, err := s.walk(ctx, id8(id))
	if err != nil {
		return nil, err
	}
	want := hashes(dir)
	mine := filepath.Join(s.tmp, s.slug(dir), "chats")
	var files []history.File[*index]
	for _, cp := range paths {
		if filepath.Dir(cp.path) != mine {
			if ph, ok := s.t.Head(cp.path, cp.fi); ok && !want.has(ph) {
				continue // another project's: not replayed
			}
		}
		x, err := s.t.Index(ctx, cp.path, cp.fi)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the walk
		}
		if err != nil {
			return nil, err
		}
		if want.has(x.header.ProjectHash) {
			files = append(files, history.File[*index]{Path: cp.path, X: x, Modified: cp.fi.ModTime()})
		}
	}
	ss := group(files, id)[id]
	if ss == nil || (real && len(ss.real) == 0) {
		return nil, noSession(id)
	}
	return ss, nil
}
