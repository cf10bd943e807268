package server

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/usage"
	"github.com/cdevd/cdevd/workspaces"
)

// defaultUsageDays is usage/summary's span when the client names none.
const defaultUsageDays = 7

func (s *Server) usageMethods() family {
	return family{
		rpc.MethodUsageLimits:  read(lookup(plain(s.usageLimits))),
		rpc.MethodUsageSummary: read(plain(s.usageSummary)),
	}
}

func (s *Server) usageLimits(_ context.Context, p rpc.UsageLimitsParams) (rpc.UsageLimitsResult, error) {
	if p.AgentType != "" {
		if _, ok := s.reg.Adapter(p.AgentType); !ok {
			return rpc.UsageLimitsResult{}, rpc.InvalidParams("agent_type", fmt.Sprintf("no runtime %q", p.AgentType))
		}
	}
	if s.cfg.Limits == nil {
		return rpc.UsageLimitsResult{Runtimes: []rpc.RuntimeLimits{}}, nil
	}
	return rpc.UsageLimitsResult{Runtimes: s.cfg.Limits.Read(p.AgentType)}, nil
}

func (s *Server) usageSummary(ctx context.Context, p rpc.UsageSummaryParams) (rpc.UsageSummaryResult, error) {
	days := p.Days
	if days == 0 {
		days = defaultUsageDays
	}
	if days < 1 || days > rpc.MaxUsageDays {
		return rpc.UsageSummaryResult{}, rpc.InvalidParams("days", fmt.Sprintf("must be 1 to %d", rpc.MaxUsageDays))
	}
	var list []workspaces.Workspace
	if p.WorkspaceID != "" {
		w, err := s.ws.Get(p.WorkspaceID)
		if err != nil {
			return rpc.UsageSummaryResult{}, err
		}
		list = []workspaces.Workspace{w}
	} else {
		list = s.ws.List()
	}
	var sources []usage.Source
	for _, w := range list {
		for _, id := range s.reg.IDs() {
			a, ok := s.reg.Adapter(id)
			if !ok || a.Transcripts() == nil {
				continue
			}
			sources = append(sources, usage.Source{WorkspaceID: w.ID, Dir: w.Path, AgentType: id, Transcripts: a.Transcripts()})
		}
	}
	res, err := usage.Summarize(ctx, sources, days, time.Now())
	if err != nil {
		s.log.Warn("usage/summary could not read a transcript", zap.Error(err))
		return rpc.UsageSummaryResult{}, &rpc.Error{Code: rpc.CodeInternalError, Message: "could not read the stored sessions: " + err.Error()}
	}
	return res, nil
}
