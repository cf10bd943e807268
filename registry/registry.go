// Package registry holds the runtime adapters cdevd was built with and turns
// them, plus what detecting each CLI found, into the runtimeRegistry that
// initialize returns. It knows no runtime by name: everything it says comes
// from the adapters' Info and Detect, so the registry cannot advertise a
// runtime or a feature that no adapter provides.
package registry

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// DetectTTL is how long a detection result is fresh. Detection runs each
// CLI's --version (hundreds of milliseconds for Node CLIs): no request pays
// for it once a result is known. A stale result is still answered at once
// while a new detection runs in the background, so that installing (or
// removing) a CLI shows up without restarting the daemon. Only the very
// first snapshot of a runtime, before any detection finished, waits.
const DetectTTL = 30 * time.Second

// DetectTimeout bounds one CLI's detection (its --version, and its login
// check where it has one): as generous as kit.DetectTimeout, for the same
// reason.
const DetectTimeout = 30 * time.Second

// Registry is the ordered set of adapters. The first is the default runtime.
type Registry struct {
	adapters []runtimes.Adapter
	byID     map[string]runtimes.Adapter
	disabled map[string]string // id → reason, from configuration

	mu       sync.Mutex
	detected map[string]detection
	offers   map[string]offered // what each CLI said it offers, kept across detections (offers.go)
	offerDir string             // where offers are kept across restarts; "": nowhere (offerstore.go)
	now      func() time.Time

	// Background detections run under ctx and are waited for by Close.
	ctx        context.Context
	cancel     context.CancelFunc
	bg         sync.WaitGroup
	refreshing map[string]bool // a background detection of it runs
	again      map[string]bool // asked for while it ran: look again when done
	closed     bool
	// detecting joins callers that find the same detection missing or
	// stale into one --version run: a burst of connections after the cache
	// expired would otherwise start one CLI each.
	detecting singleflight.Group
}

type detection struct {
	avail runtimes.Availability
	offer *runtimes.Offer // nil: the CLI said nothing of it (offers.go)
	at    time.Time
}

// New registers adapters in order; duplicate ids are an error.
func New(adapters ...runtimes.Adapter) (*Registry, error) {
	r := &Registry{byID: map[string]runtimes.Adapter{}, disabled: map[string]string{},
		detected: map[string]detection{}, offers: map[string]offered{}, refreshing: map[string]bool{},
		again: map[string]bool{}, now: time.Now}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	for _, a := range adapters {
		id := a.Info().ID
		if id == "" {
			return nil, fmt.Errorf("registry: adapter %T has no id", a)
		}
		if _, dup := r.byID[id]; dup {
			return nil, fmt.Errorf("registry: runtime %q registered twice", id)
		}
		r.byID[id] = a
		r.adapters = append(r.adapters, a)
	}
	return r, nil
}

// Disable turns a registered runtime off by configuration.
func (r *Registry) Disable(id, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.disabled[id] = reason
}

// IDs lists the registered runtime ids in registration order.
func (r *Registry) IDs() []string {
	ids := make([]string, len(r.adapters))
	for i, a := range r.adapters {
		ids[i] = a.Info().ID
	}
	return ids
}

// Default is the runtime used when a request names none.
func (r *Registry) Default() string {
	if len(r.adapters) == 0 {
		return ""
	}
	return r.adapters[0].Info().ID
}

// Adapter returns a registered adapter.
func (r *Registry) Adapter(id string) (runtimes.Adapter, bool) {
	a, ok := r.byID[id]
	return a, ok
}

// Status is a runtime's status and availability as of now.
type Status struct {
	Status       rpc.RuntimeStatus
	Availability runtimes.Availability
	Reason       string
	// Offer is what the CLI said it offers at its last detection; nil
	// when nothing. Shared and never modified (compared by identity).
	Offer *runtimes.Offer
}

// Status is one runtime's status: from its last detection, refreshed in
// the background when stale; only a runtime never detected yet is detected
// now (initialize before the first detection finished).
func (r *Registry) Status(_ context.Context, id string) Status {
	avail, _ := r.detect(r.byID[id], true)
	st := r.status(id, avail)
	if st.Availability.Usable() {
		r.mu.Lock()
		st.Offer = r.detected[id].offer
		r.mu.Unlock()
	}
	return st
}

func (r *Registry) status(id string, avail runtimes.Availability) Status {
	r.mu.Lock()
	reason, off := r.disabled[id]
	r.mu.Unlock()
	if l, ok := r.byID[id].(Unauthenticated); ok && avail.Usable() {
		if why, bad := l.Unauthenticated(); bad {
			avail.Login, avail.Reason = runtimes.LoggedOut, why
		}
	}
	switch {
	case off:
		return Status{Status: rpc.RuntimeDisabled, Availability: avail, Reason: reason}
	case !avail.Usable():
		return Status{Status: rpc.RuntimeDisabled, Availability: avail, Reason: avail.Reason}
	case r.byID[id].Info().Maturity == runtimes.Preview:
		return Status{Status: rpc.RuntimePreview, Availability: avail}
	default:
		return Status{Status: rpc.RuntimeActive, Availability: avail}
	}
}

// Unauthenticated is implemented by adapters whose turns can find the CLI
// logged out (kit.Login): the registry asks at every status, so that such
// a turn disables the runtime at once rather than at the next detection.
type Unauthenticated interface {
	Unauthenticated() (reason string, ok bool)
}

// Warm starts detecting every runtime in the background, so that the first
// client finds the results ready.
func (r *Registry) Warm() {
	for _, a := range r.adapters {
		r.refresh(a)
	}
}

// Close stops background detections and waits for them, and closes the
// adapters' transcript stores that hold something (a folder watch, say).
func (r *Registry) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.bg.Wait()
	for _, a := range r.adapters {
		if c, ok := a.Transcripts().(io.Closer); ok {
			c.Close()
		}
	}
}

// detect returns a's last detection (known is false when there is none),
// starting a background detection when it is missing or stale. With wait
// and no detection yet, it waits for one.
func (r *Registry) detect(a runtimes.Adapter, wait bool) (avail runtimes.Availability, known bool) {
	id := a.Info().ID
	r.mu.Lock()
	d, ok := r.detected[id]
	r.mu.Unlock()
	switch {
	case ok && r.now().Sub(d.at) < DetectTTL:
		return d.avail, true
	case ok || !wait:
		r.refresh(a)
		return d.avail, ok
	}
	// The first detection of a runtime: bounded by DetectTimeout, and
	// joined with any other caller's or the background's (singleflight).
	v, _, _ := r.detecting.Do(id, func() (any, error) { return r.runIfStale(a), nil })
	return v.(runtimes.Availability), true
}

// refresh detects a in the background unless its last detection is fresh.
// Asked while a refresh of a runs, it has that refresh look again when
// done, so that a result gone stale meanwhile is not missed.
func (r *Registry) refresh(a runtimes.Adapter) {
	id := a.Info().ID
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if r.refreshing[id] {
		r.again[id] = true
		return
	}
	r.refreshing[id] = true
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		for {
			// Joins a detection under way (singleflight) rather than
			// running a second one.
			r.detecting.Do(id, func() (any, error) { return r.runIfStale(a), nil })
			r.mu.Lock()
			if !r.again[id] || r.closed {
				delete(r.refreshing, id)
				delete(r.again, id)
				r.mu.Unlock()
				return
			}
			delete(r.again, id)
			r.mu.Unlock()
		}
	}()
}

// runIfStale detects a unless a detection that finished meanwhile (one
// that another caller ran while this one was getting there) is fresh.
func (r *Registry) runIfStale(a runtimes.Adapter) runtimes.Availability {
	r.mu.Lock()
	d, ok := r.detected[a.Info().ID]
	fresh := ok && r.now().Sub(d.at) < DetectTTL
	r.mu.Unlock()
	if fresh {
		return d.avail
	}
	return r.run(a)
}

// run detects a and records the result. It runs under the registry's own
// context: callers that wait on it share it, and one caller giving up must
// not fail the others.
func (r *Registry) run(a runtimes.Adapter) runtimes.Availability {
	ctx, cancel := context.WithTimeout(r.ctx, DetectTimeout)
	defer cancel()
	avail := a.Detect(ctx)
	if !avail.Installed && avail.Reason == "" {
		avail.Reason = "not installed"
	}
	if r.ctx.Err() != nil {
		return avail // closing: the result may be an artefact of the cancel
	}
	offer := r.offerFor(r.ctx, a, avail)
	r.mu.Lock()
	r.detected[a.Info().ID] = detection{avail: avail, offer: offer, at: r.now()}
	r.mu.Unlock()
	return avail
}

// Snapshot builds the runtimeRegistry of the contract. Runtimes are
// detected concurrently so one slow CLI does not add up with the others.
func (r *Registry) Snapshot(ctx context.Context) rpc.RuntimeRegistry {
	statuses := make([]Status, len(r.adapters))
	var wg sync.WaitGroup
	for i, a := range r.adapters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = r.Status(ctx, a.Info().ID)
		}()
	}
	wg.Wait()
	return Build(r.adapters, statuses, r.now())
}

// Build is the one place the registry's wire shape is assembled.
func Build(adapters []runtimes.Adapter, statuses []Status, now time.Time) rpc.RuntimeRegistry {
	defaultID := ""
	if len(adapters) > 0 {
		defaultID = adapters[0].Info().ID
	}
	list := make([]rpc.Runtime, 0, len(adapters))
	for i, a := range adapters {
		info, st := a.Info(), statuses[i]
		f := info.Features
		offer := runtimes.Offer{}
		if st.Offer != nil {
			offer = *st.Offer
		}
		list = append(list, rpc.Runtime{
			ID:                                    info.ID,
			DisplayName:                           info.DisplayName,
			Status:                                st.Status,
			SessionListSource:                     rpc.ListWorkspaceHistory,
			SessionMessagesSource:                 rpc.ScopeWorkspace,
			SessionWatchSource:                    rpc.ScopeWorkspace,
			RequiresWorkspaceActivationOnResume:   f.ActivateOnResume,
			RequiresSessionResolutionOnNewSession: !f.IDKnownAtStart,
			SupportsResume:                        f.Resume,
			SupportsInteractiveQuestions:          f.InteractiveQuestions,
			SupportsPermissions:                   f.Permissions,
			SupportsSteering:                      f.Steering,
			SupportsHistory:                       a.Transcripts() != nil,
			PermissionModes:                       append([]rpc.PermissionMode{}, info.PermissionModes...),
			SupportsConfigure:                     f.Configure,
			Models:                                wireModels(st.Offer),
			DefaultModel:                          offer.DefaultModel,
			DefaultEffort:                         offer.DefaultEffort,
			Commands:                              wireCommands(st.Offer),
			CommandsPerSession:                    offer.CommandsPerSession,
			Attachments:                           append([]rpc.AttachmentKind{}, info.Attachments...),
			Methods: rpc.RuntimeMethods{
				History:   rpc.MethodHistory,
				Messages:  rpc.MethodMessages,
				Watch:     rpc.MethodWatch,
				Unwatch:   rpc.MethodUnwatch,
				Start:     rpc.MethodSessionStart,
				Send:      rpc.MethodSessionSend,
				Stop:      rpc.MethodSessionStop,
				Input:     rpc.MethodSessionInput,
				Respond:   rpc.MethodSessionRespond,
				State:     rpc.MethodSessionState,
				Configure: configureMethod(f),
			},
			Availability: rpc.Availability{
				Installed: st.Availability.Installed,
				Version:   st.Availability.Version,
				Reason:    st.Reason,
				Login:     st.Availability.Login,
			},
		})
	}
	return rpc.RuntimeRegistry{
		SchemaVersion:  rpc.RegistrySchemaVersion,
		GeneratedAt:    rpc.FormatTime(now),
		DefaultRuntime: defaultID,
		Routing: rpc.Routing{
			AgentTypeField:    "agent_type",
			DefaultAgentType:  defaultID,
			RequiredOnMethods: rpc.RoutedMethods,
		},
		Runtimes: list,
	}
}

// configureMethod is session/configure for a runtime that supports it.
func configureMethod(f runtimes.Features) string {
	if f.Configure {
		return rpc.MethodSessionConfigure
	}
	return ""
}

// Route resolves a request's agent_type to a usable adapter, with the
// contract's errors: unknown → InvalidParams with the supported ids;
// disabled → InvalidParams with status and reason.
func (r *Registry) Route(_ context.Context, method, agentType string) (runtimes.Adapter, error) {
	if agentType == "" {
		agentType = r.Default()
	}
	a, ok := r.byID[agentType]
	if !ok {
		return nil, &rpc.Error{Code: rpc.CodeInvalidParams,
			Message: fmt.Sprintf("unknown agent_type %q", agentType),
			Data: map[string]any{"agent_type": agentType, "method": method,
				"supported_agent_types": r.IDs()}}
	}
	// A routed call never waits on a --version run: it goes by the last
	// detection, and a runtime not detected yet is tried (starting it fails
	// with a clear error if its CLI is missing).
	avail, known := r.detect(a, false)
	if !known {
		avail = runtimes.Availability{Installed: true}
	}
	if st := r.status(agentType, avail); st.Status == rpc.RuntimeDisabled && !readsStored(method, st) {
		return nil, &rpc.Error{Code: rpc.CodeInvalidParams,
			Message: fmt.Sprintf("agent_type %q is disabled: %s", agentType, st.Reason),
			Data: map[string]any{"agent_type": agentType, "method": method,
				"supported_agent_types": r.IDs(), "status": string(st.Status), "reason": st.Reason}}
	}
	return a, nil
}

// readsStored reports whether method only reads stored sessions and st
// disables the runtime only because its CLI cannot answer (logged out):
// those stay readable, as they were before the CLI lost its login.
func readsStored(method string, st Status) bool {
	switch method {
	case rpc.MethodHistory, rpc.MethodMessages, rpc.MethodWatch, rpc.MethodUnwatch:
		return st.Availability.Installed && st.Availability.Login == runtimes.LoggedOut && st.Reason == st.Availability.Reason
	}
	return false
}
