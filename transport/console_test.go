package transport

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// With a console, GET / is the console's, and the Origin check accepts the
// console's own origin (the host and port the request names) and nothing
// more; without one, its origin is as foreign as any.
func TestConsoleOrigin(t *testing.T) {
	console := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "console") })
	with := startServer(t, Config{Console: console})
	without := startServer(t, Config{})

	resp, err := http.Get(with.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "console" {
		t.Errorf("GET / with a console = %d %q", resp.StatusCode, body)
	}
	if resp, err := http.Get(without.base + "/"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET / without a console = %v, %v; want 404", resp, err)
	} else {
		resp.Body.Close()
	}

	port := with.addr[strings.LastIndex(with.addr, ":"):]
	for _, c := range []struct {
		name   string
		s      *testServer
		origin string
		want   int // 0: upgraded
	}{
		{"own origin", with, with.base, 0},
		{"own origin, other case", with, strings.ToUpper(with.base), 0},
		{"same host, other port", with, "http://127.0.0.1:1", http.StatusForbidden},
		{"localhost for 127.0.0.1", with, "http://localhost" + port, http.StatusForbidden},
		{"https", with, "https://" + with.addr, http.StatusForbidden},
		{"foreign", with, "https://evil.example", http.StatusForbidden},
		{"own origin, no console", without, without.base, http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, resp, err := c.s.dial(t, c.s.url, http.Header{"Origin": {c.origin}}, Subprotocol, bearerPrefix+testToken)
			if c.want == 0 {
				if err != nil {
					t.Fatalf("refused: %v (%v)", err, resp)
				}
				return
			}
			if err == nil || resp == nil || resp.StatusCode != c.want {
				t.Fatalf("got %v, %v; want %d", resp, err, c.want)
			}
		})
	}
}
