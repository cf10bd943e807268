package sessions

// Per-turn diffs and undo: the workspace is snapshotted (package
// workspaces/turns, which touches nothing of the user's repository) before
// each turn and after it; a turn that changed files is announced with
// event/turn_diff, and its snapshots are kept under $CDEVD_HOME so that
// session/turn_diff and session/revert work after a restart.

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces/turns"
)

// snapshotBeforeTurn waits for the last turn's end snapshot (so that turns
// do not overlap) and takes this one's starting snapshot. Nil when turns
// are not recorded: not configured, or not a git repository.
func (s *session) snapshotBeforeTurn(ctx context.Context) (*turns.Repo, string) {
	s.waitSnapshots(ctx)
	t := s.e.cfg.Turns
	if t == nil || s.e.cfg.TurnStore == nil {
		return nil, ""
	}
	repo, err := t.Open(ctx, s.dir)
	if err != nil {
		if !errors.Is(err, turns.ErrNotRepo) {
			s.log.Warn("cannot snapshot the workspace before the turn", zap.Error(err))
		}
		return nil, ""
	}
	// The prompt waits for this one: the last turn's end stands for it
	// when nothing changed since (workspaces/turns, ahead.go).
	tree, err := repo.SnapshotQuick(ctx)
	if err != nil {
		s.log.Warn("cannot snapshot the workspace before the turn", zap.Error(err))
		return nil, ""
	}
	return repo, tree
}

// waitSnapshots returns once the last turn's end snapshot is recorded.
func (s *session) waitSnapshots(ctx context.Context) {
	s.mu.Lock()
	done := s.snapping
	s.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// snapshotAfterTurnLocked records the end of the turn that just closed, in
// the background: git must not run under the session's lock, which the
// runtime's events need.
func (s *session) snapshotAfterTurnLocked() {
	repo, base := s.turnRepo, s.turnBase
	s.turnRepo, s.turnBase = nil, ""
	if repo == nil {
		return
	}
	done := make(chan struct{})
	s.snapping = done
	s.e.turnsWG.Add(1)
	go func() {
		defer s.e.turnsWG.Done()
		defer close(done)
		s.recordTurn(repo, base)
	}()
}

// recordTurn takes the end snapshot, keeps both, and tells watchers what
// changed.
func (s *session) recordTurn(repo *turns.Repo, base string) {
	ctx := s.e.ctx
	after, err := repo.Snapshot(ctx)
	if err != nil {
		s.log.Warn("cannot snapshot the workspace after the turn", zap.Error(err))
		return
	}
	num, err := s.e.cfg.TurnStore.Add(s.id, turns.Record{Dir: repo.Root, Before: base, After: after})
	if err != nil {
		s.log.Warn("cannot record the turn's snapshots", zap.Error(err))
		return
	}
	if after != base {
		s.announceDiff(ctx, repo, turns.Record{Turn: num, Before: base, After: after})
	}
}

// announceDiff sends event/turn_diff for a recorded change.
func (s *session) announceDiff(ctx context.Context, repo *turns.Repo, rec turns.Record) {
	d, err := repo.Diff(ctx, rec.Before, rec.After)
	if err != nil {
		s.log.Warn("cannot diff the turn", zap.Error(err))
		return
	}
	if len(d.Files) == 0 {
		return
	}
	td := turnDiff(rec, d)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emitLocked(rpc.EventTurnDiff, func(h rpc.EventHeader) any {
		return rpc.TurnDiffEvent{EventHeader: h, TurnDiff: td}
	})
}

func turnDiff(rec turns.Record, d turns.Diff) rpc.TurnDiff {
	return rpc.TurnDiff{Turn: rec.Turn, Reverts: rec.Reverts, Files: turnFiles(d.Files),
		Diff: d.Unified, IsTruncated: d.IsTruncated}
}

func turnFiles(fs []turns.File) []rpc.TurnFile {
	out := make([]rpc.TurnFile, len(fs))
	for i, f := range fs {
		out[i] = rpc.TurnFile{Path: f.Path, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions, Binary: f.Binary}
	}
	return out
}

// pruneTurns expires old turn records and removes the snapshot objects no
// kept record needs (the rule is turns.Prune's), once, in the background
// of the engine's start: on a large repository it reads every kept tree.
func (e *Engine) pruneTurns() {
	if e.cfg.Turns == nil || e.cfg.TurnStore == nil {
		return
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		res, err := e.cfg.Turns.Prune(e.ctx, e.cfg.TurnStore, turns.PruneConfig{})
		if err != nil && e.ctx.Err() == nil {
			e.log.Warn("cannot prune the turns' snapshots", zap.Error(err))
			return
		}
		if res.Sessions > 0 || res.Objects > 0 {
			e.log.Info("pruned the turns' snapshots", zap.Int("sessions", res.Sessions), zap.Int("objects", res.Objects))
		}
	}()
}

// turnsEnabled refuses the turn methods on a server that records no turns.
func (e *Engine) turnsEnabled() error {
	if e.cfg.Turns == nil || e.cfg.TurnStore == nil {
		return rpc.Errorf(rpc.CodeInternalError, nil, "this server does not record turns")
	}
	return nil
}

// turnRecord finds one recorded turn and opens its repository.
func (e *Engine) turnRecord(ctx context.Context, sessionID string, turn int) (turns.Record, *turns.Repo, error) {
	if sessionID == "" {
		return turns.Record{}, nil, rpc.InvalidParams("session_id", "required")
	}
	if turn < 1 {
		return turns.Record{}, nil, rpc.InvalidParams("turn", "must be 1 or more")
	}
	if err := e.turnsEnabled(); err != nil {
		return turns.Record{}, nil, err
	}
	rec, ok, err := e.cfg.TurnStore.Get(sessionID, turn)
	if errors.Is(err, turns.ErrBadSession) {
		return rec, nil, rpc.SessionNotFound(sessionID)
	}
	if err != nil {
		return rec, nil, err
	}
	if !ok {
		return rec, nil, rpc.TurnNotFound(sessionID, turn)
	}
	repo, err := e.cfg.Turns.Open(ctx, rec.Dir)
	if err != nil {
		return rec, nil, rpc.InvalidParams("turn", "its workspace is no longer a git repository: "+err.Error())
	}
	return rec, repo, nil
}

// Turns lists a session's turns that changed files, oldest first.
func (e *Engine) Turns(ctx context.Context, p rpc.TurnsParams) (rpc.TurnsResult, error) {
	if p.SessionID == "" {
		return rpc.TurnsResult{}, rpc.InvalidParams("session_id", "required")
	}
	if err := e.turnsEnabled(); err != nil {
		return rpc.TurnsResult{}, err
	}
	recs, err := e.cfg.TurnStore.List(p.SessionID)
	if errors.Is(err, turns.ErrBadSession) {
		return rpc.TurnsResult{}, rpc.SessionNotFound(p.SessionID)
	}
	if err != nil {
		return rpc.TurnsResult{}, err
	}
	res := rpc.TurnsResult{SessionID: p.SessionID, Turns: []rpc.TurnSummary{}}
	for _, rec := range recs {
		if rec.Before == rec.After {
			continue
		}
		repo, err := e.cfg.Turns.Open(ctx, rec.Dir)
		if err != nil {
			continue // the workspace is gone: its turns cannot be shown
		}
		d, err := repo.Diff(ctx, rec.Before, rec.After)
		if err != nil {
			return res, err
		}
		res.Turns = append(res.Turns, rpc.TurnSummary{Turn: rec.Turn, Reverts: rec.Reverts, Files: turnFiles(d.Files)})
	}
	return res, nil
}

// TurnDiff is one recorded turn's diff.
func (e *Engine) TurnDiff(ctx context.Context, p rpc.TurnRefParams) (rpc.TurnDiffResult, error) {
	rec, repo, err := e.turnRecord(ctx, p.SessionID, p.Turn)
	if err != nil {
		return rpc.TurnDiffResult{}, err
	}
	d, err := repo.Diff(ctx, rec.Before, rec.After)
	if err != nil {
		return rpc.TurnDiffResult{}, err
	}
	return rpc.TurnDiffResult{SessionID: p.SessionID, TurnDiff: turnDiff(rec, d)}, nil
}

// Revert restores the files a turn changed. A session that runs is held
// (no turn starts meanwhile) and refused while in a turn.
func (e *Engine) Revert(ctx context.Context, p rpc.RevertParams) (rpc.RevertResult, error) {
	rec, repo, err := e.turnRecord(ctx, p.SessionID, p.Turn)
	if err != nil {
		return rpc.RevertResult{}, err
	}
	s := e.lookup(p.SessionID)
	if s != nil {
		s.opMu.Lock()
		defer s.opMu.Unlock()
		s.mu.Lock()
		busy := s.turnOpen || s.stopping
		s.mu.Unlock()
		if busy {
			return rpc.RevertResult{}, rpc.SessionBusy(p.SessionID, "a turn is running")
		}
		s.waitSnapshots(ctx)
	}
	res, err := repo.Revert(ctx, rec.Before, rec.After, p.Force, p.DryRun)
	out := rpc.RevertResult{SessionID: p.SessionID, Files: res.Files, Conflicts: res.Conflicts, DryRun: p.DryRun}
	var conflict *turns.ConflictError
	if errors.As(err, &conflict) {
		return out, rpc.RevertConflict(p.SessionID, p.Turn, conflict.Paths)
	}
	var partial *turns.PartialError
	if errors.As(err, &partial) {
		// Said with the file that failed and, should putting files back
		// have failed too, those left restored: the client must know
		// whether the folder is as it was.
		data := map[string]any{"path": partial.Path}
		if len(partial.NotPutBack) > 0 {
			data["not_put_back"] = partial.NotPutBack
		}
		return out, rpc.Errorf(rpc.CodeInternalError, data, "revert of turn %d failed: %v", p.Turn, partial)
	}
	if err != nil {
		return out, err
	}
	out.Success = true
	if p.DryRun || res.Before == res.After {
		return out, nil
	}
	// The revert is a change like a turn's, recorded so that it can be
	// reverted in its turn.
	undo := turns.Record{Dir: rec.Dir, Before: res.Before, After: res.After, Reverts: rec.Turn}
	if undo.Turn, err = e.cfg.TurnStore.Add(p.SessionID, undo); err != nil {
		return out, err
	}
	out.Turn = undo.Turn
	if s != nil {
		s.announceDiff(ctx, repo, undo)
	}
	return out, nil
}
