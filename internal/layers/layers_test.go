package layers

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/cdevd/cdevd/"

// outside are the folders the architecture puts beside the daemon, not in
// its layers: clients and the tests that drive cdevd over the wire. No
// package of the daemon may import them.
var outside = []string{"clients/", "contracttests/", "scripts/"}

// layer is one line of the architecture's list: the folders it names, with
// "<name>" standing for any one folder.
type layer struct {
	line     int
	patterns []string
}

// readLayers takes the list under "The layers, in dependency order" from
// docs/architecture.md: each line's first word is the folder of that layer,
// and a word ending in a comma names another.
func readLayers(t *testing.T, doc []byte) []layer {
	t.Helper()
	var out []layer
	in, seen := false, false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## The layers"):
			seen = true
		case seen && strings.HasPrefix(line, "```"):
			if in {
				return out
			}
			in = true
		case in && line != "" && line[0] != ' ':
			l := layer{line: n}
			for _, f := range strings.Fields(line) {
				l.patterns = append(l.patterns, strings.TrimSuffix(f, ","))
				if !strings.HasSuffix(f, ",") {
					break
				}
			}
			out = append(out, l)
		}
	}
	t.Fatal("docs/architecture.md has no list of layers in a ``` block under \"## The layers\"")
	return nil
}

// matches reports whether the package at path (relative to the module)
// lies in the folder pattern names, and how specific the match is, so that
// the most specific layer wins.
func matches(pattern, path string) (int, bool) {
	want := strings.Split(strings.TrimSuffix(pattern, "/"), "/")
	got := strings.Split(path, "/")
	if len(got) < len(want) {
		return 0, false
	}
	score := 2 * len(want)
	for i, w := range want {
		switch {
		case w == "<name>":
			score-- // a folder named outright is more specific than <name>
		case w != got[i]:
			return 0, false
		}
	}
	return score, true
}

// of returns the index of path's layer in ls, or -1.
func of(ls []layer, path string) int {
	best, at := 0, -1
	for i, l := range ls {
		for _, p := range l.patterns {
			if n, ok := matches(p, path); ok && n > best {
				best, at = n, i
			}
		}
	}
	return at
}

func isOutside(path string) bool {
	for _, o := range outside {
		if strings.HasPrefix(path+"/", o) {
			return true
		}
	}
	return false
}

// TestLayersReadTopDown holds the code to docs/architecture.md's list of
// layers: every package of the daemon is in a layer, and none imports a
// package of a layer listed below its own (tests aside: a test may reach
// further down to build what it checks).
func TestLayersReadTopDown(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	ls := readLayers(t, doc)
	if len(ls) < 10 {
		t.Fatalf("read %d layers from docs/architecture.md; the list's format has changed", len(ls))
	}

	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok || pkg == "internal/layers" {
			continue
		}
		from := of(ls, pkg)
		if from < 0 && !isOutside(pkg) {
			t.Errorf("%s is in no layer of docs/architecture.md: add it to the list (or to this test's outside)", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			checked++
			if isOutside(dep) {
				if !isOutside(pkg) {
					t.Errorf("%s imports %s, which is outside the daemon", pkg, dep)
				}
				continue
			}
			if from < 0 {
				continue // outside packages may use any layer
			}
			if to := of(ls, dep); to > from {
				t.Errorf("%s (docs/architecture.md:%d) imports %s, a layer below it (line %d)",
					pkg, ls[from].line, dep, ls[to].line)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d imports: go list's output has changed", checked)
	}
}

// TestLayersCatchAnUpwardImport: the check above would see an import from
// a lower layer back up to a higher one.
func TestLayersCatchAnUpwardImport(t *testing.T) {
	doc := []byte("## The layers\n\n```\nrpc/   the wire\nruntimes/   adapters\nruntimes/<name>/   one per CLI\nopenrpc/, console/   docs\nruntimes/adaptertest/ a kit\n```\n")
	ls := readLayers(t, doc)
	if len(ls) != 5 {
		t.Fatalf("layers %+v", ls)
	}
	for _, c := range []struct {
		path string
		want int
	}{{"rpc", 0}, {"runtimes", 1}, {"runtimes/claude", 2}, {"runtimes/claude/transcript", 2}, {"console", 3}, {"runtimes/adaptertest", 4}, {"server", -1}} {
		if got := of(ls, c.path); got != c.want {
			t.Errorf("layer of %s = %d, want %d", c.path, got, c.want)
		}
	}
	if of(ls, "rpc") > of(ls, "runtimes/codex") {
		t.Error("rpc should be above runtimes/codex")
	}
}
