package rollout

import (
	"context"
	"io"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
	"github.com/cdevd/cdevd/rpc"
)

// Tail follows thread id's rollout from its current end, calling emit (one
// call at a time, in file order) with every message appended after that,
// until ctx ends or the returned Closer is closed. The rollout must exist
// (Codex creates it with the thread's first turn, under a name only it
// knows) and record dir as its cwd; the error wraps runtimes.ErrNoSession
// otherwise. A partial last line is held until its newline arrives; when the
// file shrinks, Tail goes on from its new end; when another file takes its
// place, Tail reads that one from its start.
//
// Every Tail shares the daemon's one inotify instance (see fswatch), watching
// the rollout's date directory so that it sees the file replaced too.
func (s *Store) Tail(ctx context.Context, dir, id string, emit func(rpc.Message)) (io.Closer, error) {
	p, err := s.Path(dir, id)
	if err != nil {
		return nil, err
	}
	log := s.log.With(zap.String("thread_id", id))
	return jsonl.Follow(ctx, s.watcher, p, "rollout", func(off int64, b []byte) {
		// Emit the line if it is a message; others, malformed ones included,
		// are skipped.
		l, err := ParseLine(b)
		if err != nil {
			log.Debug("unparsable rollout line", zap.Error(err))
			return
		}
		if m, ok := ToMessage(id, off, l); ok {
			emit(m)
		}
	}, log)
}
