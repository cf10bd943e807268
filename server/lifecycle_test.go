package server

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/sessions"
)

// fakeAdapter is a runtime whose CLI is always found; <tag> in its reason
// never matters, it only shows that no HTML escaping happens.
type fakeAdapter struct{ id string }

func (a fakeAdapter) Info() runtimes.Info {
	return runtimes.Info{ID: a.id, DisplayName: a.id + " <cli> & co", PermissionModes: []rpc.PermissionMode{rpc.PermissionDefault}}
}
func (a fakeAdapter) Detect(context.Context) runtimes.Availability {
	return runtimes.Availability{Installed: true, Version: "1.0"}
}
func (a fakeAdapter) Start(context.Context, runtimes.StartRequest, runtimes.Sink) (runtimes.Session, error) {
	return nil, runtimes.ErrNoSession
}
func (a fakeAdapter) Transcripts() runtimes.Transcripts { return nil }

// The cached initialize answer is the answer encoded afresh, with each
// client's own id, and it follows the registry when a runtime's status
// changes.
func TestInitializeResultCached(t *testing.T) {
	reg, err := registry.New(fakeAdapter{"one"}, fakeAdapter{"two"})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	engine := sessions.New(sessions.Config{Registry: reg, Epoch: "epoch-1"})
	defer engine.Close(context.Background())
	s := New(Config{Version: "v9", ServerID: "srv-1", Hostname: "box", Registry: reg, Engine: engine})
	ctx := context.Background()

	// fresh is what initialize answered before the cache: the result
	// literal, encoded as the transport encodes results.
	fresh := func(clientID string, p auth.Principal, generatedAt string) []byte {
		info := rpc.ServerInfo{Name: "cdevd", Version: "v9", ID: "srv-1", Hostname: "box"}
		snap := reg.Snapshot(ctx)
		snap.GeneratedAt = generatedAt
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rpc.InitializeResult{ProtocolVersion: rpc.ProtocolVersion, ServerInfo: info,
			ServerInfoSnake: info, ClientID: clientID, Epoch: "epoch-1",
			Device: rpc.DeviceInfo{ID: p.DeviceID, Name: p.Name, Scope: string(p.Scope)},
			Capabilities: rpc.ServerCapabilities{SupportedAgents: reg.IDs(), RuntimeRegistry: snap,
				Features: s.features()}}); err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	decoded := func(b []byte) rpc.InitializeResult {
		var r rpc.InitializeResult
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return r
	}

	owner := auth.Principal{DeviceID: auth.OwnerID, Name: "owner", Scope: auth.ScopeControl}
	phone := auth.Principal{DeviceID: "dev_1", Name: `Anna's "phone"`, Scope: auth.ScopeWatch}
	s.initializeResult(ctx, "warm-up", owner) // the cold path: every runtime detected
	a := s.initializeResult(ctx, "CLIENTA", owner)
	b := s.initializeResult(ctx, `quote"d`, phone)
	at := decoded(a).Capabilities.RuntimeRegistry.GeneratedAt
	if want := fresh("CLIENTA", owner, at); !bytes.Equal(a, want) {
		t.Fatalf("cached answer\n%s\ndiffers from a fresh one\n%s", a, want)
	}
	if want := fresh(`quote"d`, phone, at); !bytes.Equal(b, want) {
		t.Fatalf("second client's answer\n%s\nwant\n%s", b, want)
	}
	if first, second := s.caps.Load(), s.capabilities(ctx); first != second {
		t.Error("the answer was encoded again although no status changed")
	}

	reg.Disable("two", "turned off")
	c := decoded(s.initializeResult(ctx, "CLIENTC", phone))
	if rt := c.Capabilities.RuntimeRegistry.Runtimes[1]; rt.Status != rpc.RuntimeDisabled || rt.Availability.Reason != "turned off" {
		t.Errorf("after Disable the cached answer still shows %s %q", rt.Status, rt.Availability.Reason)
	}
	if c.ClientID != "CLIENTC" || c.Device.ID != "dev_1" || c.Device.Scope != "watch" {
		t.Errorf("clientId %q, device %+v", c.ClientID, c.Device)
	}
}
