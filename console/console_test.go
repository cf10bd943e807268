package console

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The committed dist/*.js are what tsc makes of web/*.ts today: a console
// built with `go build` alone runs the sources that are reviewed.
func TestDistIsFresh(t *testing.T) {
	tsc, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		t.Fatalf("tsc not found (%v): run npm ci at the repository root", err)
	}
	out := t.TempDir()
	cmd := exec.Command(tsc, "-p", "web", "--outDir", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, b)
	}
	built, err := filepath.Glob(filepath.Join(out, "*.js"))
	if err != nil || len(built) == 0 {
		t.Fatalf("tsc made no .js (%v)", err)
	}
	committed, _ := filepath.Glob(filepath.Join("dist", "*.js"))
	if len(committed) != len(built) {
		t.Errorf("dist has %d .js files, tsc makes %d", len(committed), len(built))
	}
	for _, f := range built {
		want, _ := os.ReadFile(f)
		got, err := os.ReadFile(filepath.Join("dist", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("dist/%s is stale: run `go generate ./console`", filepath.Base(f))
		}
	}
}

// Every asset comes with the strict policy, and the page loads nothing
// inline and nothing from elsewhere.
func TestHandler(t *testing.T) {
	h := Handler()
	for _, path := range []string{"/", "/app.js", "/client.js", "/style.css"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d", path, rec.Code)
			continue
		}
		if got := rec.Header().Get("Content-Security-Policy"); got != CSP {
			t.Errorf("GET %s: CSP %q", path, got)
		}
		if rec.Header().Get("X-Frame-Options") != "DENY" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: headers %v", path, rec.Header())
		}
	}
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "connect-src 'self'", "default-src 'none'"} {
		if !strings.Contains(CSP, want) {
			t.Errorf("CSP lacks %s", want)
		}
	}
	page, _ := dist.ReadFile("dist/index.html")
	for _, bad := range []string{"<script>", "style=", "onclick", "http://", "https://"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("index.html contains %q", bad)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/nope.js", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("GET /nope.js = %d", rec.Code)
	}
}
