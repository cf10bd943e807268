package server

import (
	"context"

	"github.com/cdevd/cdevd/rpc"
)

// configureMethods is session/configure: a running session's model,
// effort and permission mode from its next turn on (sessions/configure.go).
func (s *Server) configureMethods() family {
	return family{
		rpc.MethodSessionConfigure: act(plain(s.sessionConfigure)),
	}
}

func (s *Server) sessionConfigure(ctx context.Context, p rpc.SessionConfigureParams) (rpc.SessionConfigureResult, error) {
	if err := required("session_id", p.SessionID); err != nil {
		return rpc.SessionConfigureResult{}, err
	}
	if err := oneOf("permission_mode", p.PermissionMode, permissionModes...); err != nil {
		return rpc.SessionConfigureResult{}, err
	}
	return s.engine.Configure(ctx, p)
}
