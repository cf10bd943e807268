package console_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cdevd/cdevd/daemon"
)

// The Files view against a real folder: folders and files as
// workspace/files/list gives them, a Go file shown highlighted with line
// numbers, a binary file and a file over the 1 MiB cap said as such, a
// sensitive file flagged, a search hit ("name:line") opening its file at
// that line, and the phone's list → file → back.
func TestConsoleFiles(t *testing.T) {
	bctx := browser(t)
	dir, _ := gitRepo(t)
	var src strings.Builder
	src.WriteString("package main\n\nimport \"fmt\"\n\n")
	for i := 5; i <= 60; i++ {
		fmt.Fprintf(&src, "// line %d\n", i)
	}
	src.WriteString("func main() { fmt.Println(\"hi\") }\n")
	writeFile(t, filepath.Join(dir, "src", "cmd", "main.go"), src.String())
	writeFile(t, filepath.Join(dir, "docs", "guide.md"), "# Guide\n")
	writeFile(t, filepath.Join(dir, "logo.bin"), "\x00\x01\x02binary")
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("0123456789abcdef\n", 80_000)) // 1.3 MB
	writeFile(t, filepath.Join(dir, ".env"), "TOKEN=not-a-real-one\n")
	d := startDaemon(t, daemon.Config{Workspaces: []string{dir}})

	a := tab(t, bctx)
	do(t, a, "open the console", chromedp.Navigate(d.ConsoleURL()))
	pickWorkspace(t, a, dir)
	do(t, a, "open Files", chromedp.Click(chromedp.CSS("#files-open"), chromedp.NodeVisible))
	entry := func(kind, path string) string {
		return `document.querySelector('#file-list .entry.` + kind + `[data-path="` + path + `"]')`
	}
	until(t, a, "the root", entry("dir", "src")+" && "+entry("dir", "docs")+" && "+entry("file", "a.txt")+" && "+entry("file", "logo.bin"))
	if eval[bool](t, a, entry("dir", ".git")+" !== null") {
		t.Error(".git is listed")
	}
	if got := eval[string](t, a, entry("file", ".env")+`?.className ?? 'missing'`); !strings.Contains(got, "sensitive") {
		t.Errorf(".env row class = %q, want it flagged sensitive", got)
	}
	if got := eval[string](t, a, entry("file", "logo.bin")+`.querySelector('.entry-meta').textContent`); !strings.Contains(got, "binary") {
		t.Errorf("logo.bin's row says %q, want binary", got)
	}

	click(t, a, `.entry.dir[data-path="src"] .entry-open`)
	until(t, a, "src", entry("dir", "src/cmd")+" && "+has("#crumbs .crumb", "src"))
	click(t, a, `.entry.dir[data-path="src/cmd"] .entry-open`)
	until(t, a, "src/cmd", entry("file", "src/cmd/main.go"))
	click(t, a, `.entry.file[data-path="src/cmd/main.go"] .entry-open`)
	until(t, a, "main.go shown", `document.querySelector('#viewer').dataset.path === 'src/cmd/main.go' && `+
		has("#viewer-body .file-code", "func main()")+` && document.querySelector('#viewer-body .hljs-keyword')`)
	if n := eval[int](t, a, `document.querySelectorAll('#viewer-body .gutter [data-line]').length`); n != 61 {
		t.Errorf("%d line numbers, want 61", n)
	}
	shot(t, a, "desktop-files")

	// Up by the crumbs, then a binary file and one past the cap.
	click(t, a, `#crumbs .crumb`)
	until(t, a, "the root again", entry("file", "logo.bin"))
	click(t, a, `.entry.file[data-path="logo.bin"] .entry-open`)
	until(t, a, "binary said", `document.querySelector('#viewer').dataset.path === 'logo.bin' && `+has("#viewer-body .binary-note", "Binary file")+
		` && !document.querySelector('#viewer-body .file-code')`)
	click(t, a, `.entry.file[data-path="big.txt"] .entry-open`)
	until(t, a, "cut short said", `document.querySelector('#viewer').dataset.path === 'big.txt' && `+has("#viewer-note", "Cut short")+
		" && "+has("#viewer-body .file-code", "0123456789abcdef"))
	click(t, a, `.entry.file[data-path=".env"] .entry-open`)
	until(t, a, ".env flagged", `document.querySelector('#viewer').dataset.path === '.env' && `+has("#viewer-note", "secrets"))

	// A file gone since the folder was listed: the open's banner says so,
	// the file shown stays, and the banner goes when an open succeeds.
	if err := os.Remove(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	click(t, a, `.entry.file[data-path="a.txt"] .entry-open`)
	until(t, a, "the open's banner", `document.querySelector('.banner-item[data-action="Open file"]')`)
	if p := eval[string](t, a, `document.querySelector('#viewer').dataset.path`); p != ".env" {
		t.Errorf("after a failed open the viewer shows %q, want .env still", p)
	}
	click(t, a, `.entry.file[data-path="logo.bin"] .entry-open`)
	until(t, a, "the banner gone", `document.querySelector('#viewer').dataset.path === 'logo.bin' && !document.querySelector('.banner-item[data-action="Open file"]')`)

	// Search: a hit opens its file at the line asked for.
	do(t, a, "search", chromedp.SendKeys(chromedp.CSS("#search-input"), "maingo:40"))
	until(t, a, "the hit", `document.querySelector('#search-results:not([hidden]) .search-hit[data-path="src/cmd/main.go"]')`)
	shot(t, a, "desktop-files-search")
	click(t, a, `.search-hit[data-path="src/cmd/main.go"] .hit-open`)
	until(t, a, "main.go at line 40", `document.querySelector('#viewer').dataset.path === 'src/cmd/main.go' && `+
		`document.querySelector('#viewer-body .gutter .target')?.textContent === '40'`)
	inView := `(() => { const r = document.querySelector('#viewer-body .gutter .target').getBoundingClientRect();
		const v = document.querySelector('#viewer-body .file-view').getBoundingClientRect();
		return r.top >= Math.max(v.top, 0) && r.bottom <= Math.min(v.bottom, innerHeight) })()`
	until(t, a, "line 40 in view", inView)
	do(t, a, "search nothing", chromedp.SetValue(chromedp.CSS("#search-input"), "zzzqqq"), chromedp.Submit(chromedp.CSS("#search-input")))
	until(t, a, "no hit said", has("#search-results .empty", "No file matches"))

	// Phone: the file takes the screen, "‹ Files" returns to the folder,
	// "‹ Back" to the list.
	do(t, a, "phone width", chromedp.EmulateViewport(390, 844))
	do(t, a, "search again", chromedp.SetValue(chromedp.CSS("#search-input"), "guide"), chromedp.Submit(chromedp.CSS("#search-input")))
	click(t, a, `.search-hit[data-path="docs/guide.md"] .hit-open`)
	until(t, a, "the file alone", visible("#viewer")+" && !"+visible("#browser")+" && !"+visible("#side")+" && "+has("#viewer-body", "# Guide"))
	if w := eval[int](t, a, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px wide the page is %d px wide: it scrolls sideways", w)
	}
	shot(t, a, "phone-files")
	do(t, a, "close the file", chromedp.Click(chromedp.CSS("#viewer-close"), chromedp.NodeVisible))
	until(t, a, "the folder", visible("#browser")+" && !"+visible("#viewer"))
	do(t, a, "back", chromedp.Click(chromedp.CSS("#review-back"), chromedp.NodeVisible))
	until(t, a, "the list", visible("#side")+" && !"+visible("#review"))
}
