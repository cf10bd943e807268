package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/internal/config"
)

// The configuration's kinds are notify's: a kind added here and not there
// would be refused by serve, and the reverse accepted and never sent.
func TestConfigKindsAreNotifysKinds(t *testing.T) {
	var ours []string
	for _, k := range Kinds {
		ours = append(ours, string(k))
	}
	if !slices.Equal(ours, config.NotifyKinds) {
		t.Errorf("notify.Kinds %v, config.NotifyKinds %v", ours, config.NotifyKinds)
	}
}

// Test sends through every sink and says how each went.
func TestTestSaysHowEachSinkWent(t *testing.T) {
	r := newReceiver(t)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(broken.Close)
	sinks := FromConfig(config.Notify{
		Webhooks: []config.WebhookSink{{SinkCommon: config.SinkCommon{Name: "good", Kinds: []string{"permission"}},
			URL: r.srv.URL, Secret: testSecret}},
		Ntfy: []config.NtfySink{{SinkCommon: config.SinkCommon{Name: "bad"}, Server: broken.URL, Topic: "t"}},
	})
	res := Test(context.Background(), sinks, "http://console/")
	if len(res) != 2 || !res[0].OK || res[0].Sink != "good" || res[0].Type != "webhook" ||
		res[1].OK || res[1].Sink != "bad" || !strings.Contains(res[1].Error, "401") {
		t.Fatalf("results %+v", res)
	}
	got := r.next(t) // signed, though the sink wants only permissions: a test goes everywhere
	if got.note.Kind != KindTest || got.note.URL != "http://console/" {
		t.Errorf("test notification %+v", got.note)
	}
}
