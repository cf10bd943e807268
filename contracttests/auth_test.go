package contracttests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// refused dials and returns the HTTP status of the refused upgrade.
func refused(t *testing.T, ctx context.Context, u, token string, opts ...DialOption) int {
	t.Helper()
	ws, resp, err := DialWebSocket(ctx, u, token, opts...)
	if err == nil {
		ws.Close()
		t.Fatalf("upgrade succeeded, want it refused")
	}
	if resp == nil {
		t.Fatalf("no HTTP response: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestAuthRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	withQuery := e.url + "?token=" + url.QueryEscape(e.token)
	cases := []struct {
		name   string
		url    string
		token  string
		opts   []DialOption
		status int
	}{
		{"no token", e.url, "", nil, http.StatusUnauthorized},
		{"wrong token", e.url, e.token + "x", nil, http.StatusUnauthorized},
		{"token prefix", e.url, e.token[:len(e.token)/2], nil, http.StatusUnauthorized},
		{"wrong subprotocol token", e.url, "nope", []DialOption{WithSubprotocolToken()}, http.StatusUnauthorized},
		{"token in the query string", withQuery, "", nil, http.StatusUnauthorized},
		{"basic scheme", e.url, "", []DialOption{WithHeader(http.Header{"Authorization": {"Basic " + e.token}})}, http.StatusUnauthorized},
		{"foreign origin", e.url, e.token, []DialOption{WithHeader(http.Header{"Origin": {"https://evil.example"}})}, http.StatusForbidden},
		{"rebinding host", e.url, e.token, []DialOption{WithHeader(http.Header{"Host": {"evil.example:16180"}})}, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := refused(t, ctx, tc.url, tc.token, tc.opts...); got != tc.status {
				t.Errorf("HTTP %d, want %d", got, tc.status)
			}
		})
	}
}

func TestAuthAccepted(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	t.Run("bearer header", func(t *testing.T) {
		Connect(t, ctx, e.url, e.token)
	})
	t.Run("bearer subprotocol", func(t *testing.T) {
		ws, resp, err := DialWebSocket(ctx, e.url, e.token, WithSubprotocolToken())
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer ws.Close()
		// The server selects a protocol the browser offered, and never
		// echoes the token when it can avoid it.
		if p := resp.Header.Get("Sec-WebSocket-Protocol"); p != "cdevd" {
			t.Errorf("selected subprotocol %q, want cdevd", p)
		}
		Connect(t, ctx, e.url, e.token, WithSubprotocolToken())
	})
	t.Run("localhost host", func(t *testing.T) {
		Connect(t, ctx, e.url, e.token, WithHeader(http.Header{"Host": {"localhost:1"}}))
	})
}

func TestAllowedOriginAndHost(t *testing.T) {
	e := startEnv(t, func(dc *daemon.Config, _ *scripted.Config) {
		dc.AllowOrigins = []string{"https://app.example"}
		dc.AllowHosts = []string{"devbox.lan"}
	})
	ctx := testCtx(t)
	Connect(t, ctx, e.url, e.token, WithHeader(http.Header{"Origin": {"https://app.example"}}))
	Connect(t, ctx, e.url, e.token, WithHeader(http.Header{"Host": {"devbox.lan:8080"}}))
	if got := refused(t, ctx, e.url, e.token, WithHeader(http.Header{"Origin": {"https://app.example.evil"}})); got != http.StatusForbidden {
		t.Errorf("near-miss origin: HTTP %d, want 403", got)
	}
}

func TestProbes(t *testing.T) {
	e := newEnv(t)
	ctx := testCtx(t)
	base := "http" + strings.TrimSuffix(strings.TrimPrefix(e.url, "ws"), "/ws")
	get := func(path, token string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Close = true // no idle keep-alive connection outlives the test
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		path, token string
		want        int
	}{
		{"/healthz", "", http.StatusOK},
		{"/readyz", "", http.StatusOK},
		{"/metrics", "", http.StatusUnauthorized},
		{"/metrics", "wrong", http.StatusUnauthorized},
		{"/metrics", e.token, http.StatusOK},
	} {
		if got := get(tc.path, tc.token); got != tc.want {
			t.Errorf("GET %s (token %v): HTTP %d, want %d", tc.path, tc.token != "", got, tc.want)
		}
	}
}
