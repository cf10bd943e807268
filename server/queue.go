package server

import (
	"context"

	"github.com/cdevd/cdevd/rpc"
)

// queueMethods are the follow-up queue's methods and steering
// (sessions/queue.go has the behaviour).
func (s *Server) queueMethods() family {
	return family{
		rpc.MethodQueueList:    read(lookup(plain(s.queueList))),
		rpc.MethodQueueUpdate:  act(plain(s.queueUpdate)),
		rpc.MethodQueueMove:    act(plain(s.queueMove)),
		rpc.MethodQueueRemove:  act(plain(s.queueRemove)),
		rpc.MethodQueueClear:   act(plain(s.queueClear)),
		rpc.MethodQueueResume:  act(withClient(s.queueResume)),
		rpc.MethodSessionSteer: act(plain(s.sessionSteer)),
	}
}

func (s *Server) queueList(_ context.Context, p rpc.QueueParams) (rpc.QueueResult, error) {
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.QueueResult{}, err
	}
	return s.engine.QueueList(p)
}

func (s *Server) queueUpdate(_ context.Context, p rpc.QueueUpdateParams) (rpc.QueueResult, error) {
	if err := requireAll("session_id", p.SessionID, "queue_id", p.QueueID, "prompt", p.Prompt); err != nil {
		return rpc.QueueResult{}, err
	}
	return s.engine.QueueUpdate(p)
}

func (s *Server) queueMove(_ context.Context, p rpc.QueueMoveParams) (rpc.QueueResult, error) {
	if err := requireAll("session_id", p.SessionID, "queue_id", p.QueueID); err != nil {
		return rpc.QueueResult{}, err
	}
	return s.engine.QueueMove(p)
}

func (s *Server) queueRemove(_ context.Context, p rpc.QueueItemParams) (rpc.QueueResult, error) {
	if err := requireAll("session_id", p.SessionID, "queue_id", p.QueueID); err != nil {
		return rpc.QueueResult{}, err
	}
	return s.engine.QueueRemove(p)
}

func (s *Server) queueClear(_ context.Context, p rpc.QueueParams) (rpc.QueueResult, error) {
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.QueueResult{}, err
	}
	return s.engine.QueueClear(p)
}

func (s *Server) queueResume(ctx context.Context, c *client, p rpc.QueueParams) (rpc.QueueResult, error) {
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.QueueResult{}, err
	}
	return s.engine.QueueResume(ctx, c, p)
}

func (s *Server) sessionSteer(ctx context.Context, p rpc.SteerParams) (rpc.SteerResult, error) {
	if err := requireAll("session_id", p.SessionID, "prompt", p.Prompt); err != nil {
		return rpc.SteerResult{}, err
	}
	return s.engine.Steer(ctx, p)
}

// requireAll checks required string params, given as name, value pairs.
func requireAll(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := required(pairs[i], pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}
