package transcript

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// Tail follows a transcript from its current end, calling emit (one call at
// a time, in file order) with every message appended after that, until ctx
// ends or the returned Closer is closed. The file need not exist yet: a
// session's transcript appears with its first turn. Tail watches the
// directory, not the file, so that it sees the file created, removed or
// replaced. A partial last line is held until its newline arrives. When the
// file shrinks, Tail goes on from its new end; when another file takes its
// place, Tail reads that one from the start (like tail -F). emit must not
// block for long, nor call Close.
//
// Every Tail shares the daemon's one inotify instance (see fswatch); nothing
// is debounced, so a message is emitted as soon as the write that completes
// its line is noticed. A watch the system refuses is an *fswatch.Error
// that says why.
func (s *Store) Tail(ctx context.Context, dir, sessionID string, emit func(rpc.Message)) (io.Closer, error) {
	p, err := s.path(dir, sessionID)
	if err != nil {
		return nil, err
	}
	// A directory that does not exist cannot be watched. Claude creates it
	// with the session's first line anyway, and an empty one lists nothing.
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, err
	}
	log := s.log.With(zap.String("session_id", sessionID))
	return jsonl.Follow(ctx, s.watcher, p, "transcript", func(_ int64, b []byte) {
		// Emit the line if it is a message.
		l, err := ParseLine(b)
		if err != nil {
			log.Debug("unparsable transcript line", zap.Error(err))
			return
		}
		if m, ok := ToMessage(sessionID, l); ok {
			emit(m)
		}
	}, log)
}
