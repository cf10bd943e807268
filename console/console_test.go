package console

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The committed dist/app.js is what go generate makes of web/app.ts and the
// client package today (tsc --strict checks, esbuild bundles): a console
// built with `go build` alone runs the sources that are reviewed.
func TestDistIsFresh(t *testing.T) {
	tool := func(name string) string {
		p, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s not found (%v): run npm ci at the repository root", name, err)
		}
		return p
	}
	if b, err := exec.Command(tool("tsc"), "-p", "web").CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, b)
	}
	out := filepath.Join(t.TempDir(), "app.js")
	// The flags of the go:generate line in doc.go, but the output file.
	args := append(generateArgs(t), "--outfile="+out)
	if b, err := exec.Command(tool("esbuild"), args...).CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, b)
	}
	committed, _ := filepath.Glob(filepath.Join("dist", "*.js"))
	if len(committed) != 2 || filepath.Base(committed[0]) != "app.js" || filepath.Base(committed[1]) != "sw.js" {
		t.Errorf("dist has %v, want app.js (generated) and sw.js (the service worker, by hand) only", committed)
	}
	want, _ := os.ReadFile(out)
	got, err := os.ReadFile(filepath.Join("dist", "app.js"))
	if err != nil || !bytes.Equal(got, want) {
		t.Error("dist/app.js is stale: run `go generate ./console`")
	}
}

// generateArgs is esbuild's arguments in doc.go's go:generate line, without
// --outfile.
func generateArgs(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(l, "//go:generate ../node_modules/.bin/esbuild "); ok {
			var args []string
			for _, a := range strings.Fields(rest) {
				if !strings.HasPrefix(a, "--outfile=") {
					args = append(args, a)
				}
			}
			return args
		}
	}
	t.Fatal("doc.go has no esbuild go:generate line")
	return nil
}

// Every asset comes with the strict policy, and the page loads nothing
// inline and nothing from elsewhere.
func TestHandler(t *testing.T) {
	h := Handler()
	for _, path := range []string{"/", "/app.js", "/style.css", "/sw.js", "/favicon.svg"} {
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
	if !bytes.Contains(page, []byte(`<link rel="icon" href="favicon.svg"`)) {
		t.Error("index.html names no icon: browsers ask for /favicon.ico and log a 404")
	}
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

// The page's JavaScript and CSS together, gzipped as a server would send
// them, stay under 300 KB: a phone on a slow network opens it quickly.
func TestBundleBudget(t *testing.T) {
	const budget = 300 << 10
	var total int
	for _, name := range []string{"dist/app.js", "dist/style.css"} {
		b, err := dist.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		w.Write(b)
		w.Close()
		t.Logf("%s: %d bytes, %d gzipped", name, len(b), z.Len())
		total += z.Len()
	}
	if total >= budget {
		t.Errorf("JS and CSS are %d bytes gzipped, over the budget of %d", total, budget)
	}
}
