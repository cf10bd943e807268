package notify

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/cdevd/cdevd/internal/config"
)

// FromConfig builds the sinks config.toml declares.
func FromConfig(c config.Notify) []Sink {
	var sinks []Sink
	for _, w := range c.Webhooks {
		sinks = append(sinks, NewWebhook(sinkConfig(w.SinkCommon), w.URL, string(w.Secret)))
	}
	for _, f := range c.Ntfy {
		sinks = append(sinks, NewNtfy(sinkConfig(f.SinkCommon), f.Server, f.Topic, string(f.Token)))
	}
	return sinks
}

func sinkConfig(c config.SinkCommon) SinkConfig {
	kinds := make([]Kind, len(c.Kinds))
	for i, k := range c.Kinds {
		kinds[i] = Kind(k)
	}
	return SinkConfig{Name: c.Name, Kinds: kinds, Timeout: c.Timeout, Retries: c.Retries}
}

// TestResult is how one sink took a test notification.
type TestResult struct {
	Sink  string `json:"sink"`
	Type  string `json:"type"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Millis is how long the attempt took.
	Millis int64 `json:"ms"`
}

// Test sends a test notification through every sink at once, one attempt
// each (a test says how the channel is now, not after retries), and says
// how each went, in the sinks' order.
func Test(ctx context.Context, sinks []Sink, consoleURL string) []TestResult {
	machine, _ := os.Hostname()
	n := Notification{ID: "test/" + time.Now().UTC().Format("20060102T150405.000"), Kind: KindTest,
		Action: ActionNotify, Title: "cdevd can reach you", Body: "A test notification from cdevd on " + machine,
		Machine: machine, URL: consoleURL, Time: time.Now().UTC()}
	out := make([]TestResult, len(sinks))
	var wg sync.WaitGroup
	for i, s := range sinks {
		wg.Go(func() {
			began := time.Now()
			err := s.Send(ctx, n)
			out[i] = TestResult{Sink: s.Name(), Type: s.Type(), OK: err == nil, Millis: time.Since(began).Milliseconds()}
			if err != nil {
				out[i].Error = err.Error()
			}
		})
	}
	wg.Wait()
	return out
}
