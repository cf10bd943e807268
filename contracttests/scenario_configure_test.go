package contracttests

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// scenarioConfigure: the record lists the models the CLI offers; a
// session/configure of model and effort shows in the next request the
// fake model API receives, through the CLI's own mechanism; what the
// runtime does not offer is refused with what it does.
func scenarioConfigure(t *testing.T, r *scenarioRig) {
	rec := r.record
	if !rec.SupportsConfigure || rec.Methods.Configure != rpc.MethodSessionConfigure {
		t.Fatalf("%s does not advertise session/configure: %v %q", rec.ID, rec.SupportsConfigure, rec.Methods.Configure)
	}
	target, ok := findModel(rec.Models, r.rt.configureModel)
	if !ok || rec.DefaultModel == "" {
		t.Fatalf("the record lists models %v (default %q); want %q among them", ids(rec.Models), rec.DefaultModel, r.rt.configureModel)
	}
	if (len(rec.Commands) > 0) != r.rt.commands {
		t.Errorf("the record lists %d slash commands; the CLI has them: %v", len(rec.Commands), r.rt.commands)
	}
	if _, ok := findModel(rec.Models, rec.DefaultModel); !ok {
		t.Errorf("the default model %q is not listed", rec.DefaultModel)
	}
	ctx := testCtx(t)
	c, _ := r.client(t, ctx)
	w := r.workspace(t, ctx, c)
	// A start with a model the runtime does not offer is refused before
	// any process starts.
	if _, err := c.Call(ctx, rpc.MethodSessionStart, rpc.SessionStartParams{WorkspaceID: w.ID, AgentType: r.rt.id,
		Model: "no-such-model"}); err == nil || err.Code != rpc.CodeInvalidParams {
		t.Errorf("a start with an unknown model: %v, want -32602", err)
	}
	if left := r.procs(w.Path); len(left) != 0 {
		t.Errorf("a refused start left processes %v", left)
	}
	id := r.start(t, ctx, c, w, rpc.PermissionDefault)
	r.turn(t, ctx, c, id, "before")
	if m, _ := r.lastModel(t); r.matches(target, m) {
		t.Fatalf("the first turn already ran %q", m)
	}

	var res rpc.SessionConfigureResult
	p := rpc.SessionConfigureParams{SessionID: id, AgentType: r.rt.id, Model: target.ID, Effort: r.rt.configureEffort}
	c.MustCall(ctx, rpc.MethodSessionConfigure, p, &res)
	if res.Model != target.ID || res.Effort != r.rt.configureEffort || res.Applies != "next_turn" || res.TurnRunning {
		t.Errorf("session/configure = %+v", res)
	}
	r.turn(t, ctx, c, id, "after")
	m, effort := r.lastModel(t)
	if !r.matches(target, m) || effort != r.rt.configureEffort {
		t.Errorf("the next request ran model %q effort %q, want %s (%v) and %q", m, effort, target.ID, target.Aliases, r.rt.configureEffort)
	}
	var st rpc.SessionStateResult
	c.MustCall(ctx, rpc.MethodSessionState, rpc.SessionStateParams{SessionID: id}, &st)
	if st.Model != target.ID || st.Effort != r.rt.configureEffort {
		t.Errorf("session/state says model %q effort %q", st.Model, st.Effort)
	}

	// Bad input: each refused with -32602 and what is offered, the session intact.
	refusals := []struct {
		name string
		p    rpc.SessionConfigureParams
		want []string
	}{
		{"an unknown model", rpc.SessionConfigureParams{Model: "no-such-model"}, ids(rec.Models)},
		{"an effort the model lacks", rpc.SessionConfigureParams{Effort: "no-such-effort"}, target.Efforts},
	}
	for _, rf := range refusals {
		rf.p.SessionID = id
		_, err := c.Call(ctx, rpc.MethodSessionConfigure, rf.p)
		if err == nil || err.Code != rpc.CodeInvalidParams {
			t.Errorf("%s: %v, want -32602", rf.name, err)
			continue
		}
		var data struct {
			Supported []string `json:"supported"`
		}
		b, _ := json.Marshal(err.Data)
		if json.Unmarshal(b, &data) != nil || !slices.Equal(data.Supported, rf.want) {
			t.Errorf("%s: data %s, want supported %v", rf.name, b, rf.want)
		}
	}
	if _, err := c.Call(ctx, rpc.MethodSessionConfigure, rpc.SessionConfigureParams{SessionID: "no-such-session", Model: target.ID}); err == nil ||
		err.Code != rpc.CodeSessionNotFound {
		t.Errorf("an unknown session: %v, want -32010", err)
	}
	r.turn(t, ctx, c, id, "still")
	if m, _ := r.lastModel(t); !r.matches(target, m) {
		t.Errorf("after the refusals the session ran %q", m)
	}
	c.MustCall(ctx, rpc.MethodSessionStop, rpc.SessionStopParams{SessionID: id}, nil)
	if _, err := c.Call(ctx, rpc.MethodSessionConfigure, rpc.SessionConfigureParams{SessionID: id, Model: target.ID}); err == nil ||
		err.Code != rpc.CodeSessionBusy {
		t.Errorf("a stopped session: %v, want -32011", err)
	}
}

// matches reports whether the model API was called with m.
func (r *scenarioRig) matches(m rpc.RuntimeModel, called string) bool {
	return called == m.ID || slices.Contains(m.Aliases, called)
}

func findModel(models []rpc.RuntimeModel, name string) (rpc.RuntimeModel, bool) {
	for _, m := range models {
		if m.ID == name || slices.Contains(m.Aliases, name) {
			return m, true
		}
	}
	return rpc.RuntimeModel{}, false
}

func ids(models []rpc.RuntimeModel) []string {
	out := []string{}
	for _, m := range models {
		out = append(out, m.ID)
	}
	return out
}
