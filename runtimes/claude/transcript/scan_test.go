package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// checkClassify fails unless a scan counts line b as a message exactly
// when a page reads it as one (isMessage: ToMessage then shows it or,
// damaged inside, Counted has it left out), and a scan's reading, which
// remembers the keys of the lines before (the real CLI's, the cases here,
// and b itself), reads what a page's does.
func checkClassify(t *testing.T, b []byte) {
	t.Helper()
	l := parse(b)
	if pl, err := ParseLine(b); json.Valid(b) && (err != nil || !reflect.DeepEqual(pl, l)) {
		t.Fatalf("%q: ParseLine %+v, %v; a page's reading %+v", b, pl, err, l)
	}
	if got := (&index{}).add(b); got != isMessage(l) {
		t.Fatalf("%q: a scan says message %v; a page %v", b, got, isMessage(l))
	}
	if _, ok := ToMessage("s", l); json.Valid(b) && ok != isMessage(l) {
		t.Fatalf("%q: ToMessage %v; isMessage %v", b, ok, isMessage(l))
	}
	sh := new(jsonl.Shape)
	for _, sl := range shapeLines {
		var x Line
		_ = read(lineSchema, sh, sl, &x)
	}
	for range 2 {
		var sl Line
		_ = read(lineSchema, sh, b, &sl)
		if !reflect.DeepEqual(sl, l) {
			t.Fatalf("%q: a scan's reading %+v; a page's %+v", b, sl, l)
		}
	}
}

// shapeLines are the lines of the real CLI's transcripts and the cases
// below, which checkClassify's Shape has seen before each line it checks.
var shapeLines = func() [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "lines", "*.jsonl"))
	var ls [][]byte
	for _, file := range files {
		b, _ := os.ReadFile(file)
		ls = append(ls, bytes.Split(b, []byte("\n"))...)
	}
	for _, c := range classifyCases {
		ls = append(ls, []byte(c.line))
	}
	return ls
}()

// classifyCases are lines where a scan could go wrong, and whether each
// is a message.
var classifyCases = []struct {
	line string
	msg  bool
}{
	{`{"type":"user","message":{"content":"hi"}}`, true},
	{` { "type" : "assistant" , "message" : [ ] } `, true},
	{`{"type":"user","message":null}`, false},
	{`{"type":"user"}`, false},
	{`{"type":"user","message":{},"isMeta":true}`, false},
	{`{"type":"user","message":{},"isSidechain":true}`, false},
	{`{"type":"user","message":{},"isMeta":"true"}`, true},    // a type error leaves it false
	{`{"type":"user","message":{},"isSidechain":null}`, true}, // null leaves it false
	{`{"type":5,"message":{}}`, false},
	{`{"types":"user","message":{}}`, false},                // begins as a key read does
	{`{"message":{"type":"user"},"type":"summary"}`, false}, // only the top level counts
	{`{"x":"\"type\":\"user\"","type":"attachment","message":{}}`, false},
	{`{"x":"a\\","type":"user","message":{"s":"}{]["}}`, true}, // backslash runs, brackets in strings
	{`{"type":"us\u0065r","message":{}}`, true},                // escapes
	{`{"Type":"user","message":{}}`, true},                     // encoding/json folds case
	{`{"type":"user","message":{},"type":"summary"}`, false},   // repeated: the last wins
	{`{"typ\u0065":"user","message":{}}`, true},
	{`{"type":"user","message":{}`, false}, // torn
	{`{"type":"user","message":{}} x`, false},
	{`[1]`, false},
	{``, false},
}

// TestClassify: a scan and a page agree on which lines are messages.
func TestClassify(t *testing.T) {
	for _, c := range classifyCases {
		l, _ := ParseLine([]byte(c.line))
		if got := (&index{}).add([]byte(c.line)); got != c.msg || isMessage(l) != c.msg {
			t.Errorf("%s: a scan says message %v, ParseLine %v; want %v", c.line, got, isMessage(l), c.msg)
		}
		checkClassify(t, []byte(c.line))
	}
}

// FuzzClassify: a scan counts as messages the lines a page reads as
// messages, so that counts from a scan agree with pages.
func FuzzClassify(f *testing.F) {
	seedLines(f)
	for _, c := range classifyCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(checkClassify)
}

// TestIndexMerge: an index gathered in two parts and merged says what one
// gathered over the whole says, wherever the cut falls: titles set (even to
// "") in either part, the first prompt, the latest branch.
func TestIndexMerge(t *testing.T) {
	lines := []string{
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]},"gitBranch":"main"}`,
		`{"type":"custom-title","customTitle":"first name"}`,
		`{"type":"user","message":{"role":"user","content":"the prompt"},"gitBranch":"main"}`,
		`{"type":"ai-title","aiTitle":"ai name"}`,
		`{"type":"assistant","message":{"role":"assistant","content":[]},"gitBranch":"feature"}`,
		`{"type":"custom-title","customTitle":""}`,
		`{"type":"user","message":{"role":"user","content":"later prompt"},"gitBranch":""}`,
		`{"type":"summary","summary":"a summary"}`,
	}
	gather := func(ls []string) *index {
		x := &index{}
		for _, l := range ls {
			x.add([]byte(l))
		}
		return x
	}
	whole := gather(lines)
	for cut := range len(lines) + 1 {
		x := gather(lines[:cut])
		x.Merge(gather(lines[cut:]))
		if x.title() != whole.title() || x.facts != whole.facts {
			t.Errorf("cut at %d: %+v; whole: %+v", cut, *x, *whole)
		}
	}
	if whole.title() != "ai name" || whole.Prompt != "the prompt" || whole.Branch != "feature" {
		t.Errorf("whole: title %q, prompt %q, branch %q", whole.title(), whole.Prompt, whole.Branch)
	}
}

// TestFirstPromptInParts: a transcript big enough to be scanned in parts
// on several cores is titled by its first typed prompt wherever that falls
// (the first part, a later one, none), although the parts after the
// earliest that found one stop looking.
func TestFirstPromptInParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	pad := strings.Repeat("lorem ipsum ", 100)
	answer := func(i int) string {
		return fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":%q}]},"uuid":"a%d"}`, pad, i) + "\n"
	}
	toolResult := func(i int) string { // decoded while a prompt is looked for: small, for -race
		return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"ok"}]},"uuid":"r%d"}`, i, i) + "\n"
	}
	typed := func(s string) string {
		return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q},"uuid":"p"}`, s) + "\n"
	}
	const lines = 20 << 20 / 1200 // about 20 MB: two parts
	for _, c := range []struct {
		at   int // the line before which the first prompt is; -1: none
		want string
	}{{0, "the first prompt"}, {lines * 3 / 8, "the first prompt"}, {lines * 5 / 8, "the first prompt"}, {-1, ""}} {
		projects := t.TempDir()
		d := New(projects, nil).Dir(workDir)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i := range lines {
			if i == c.at {
				b.WriteString(typed("the first prompt"))
			} else if c.at >= 0 && i > c.at && i%500 == 0 {
				b.WriteString(typed(fmt.Sprintf("a later prompt %d", i)))
			}
			if i%10 == 0 {
				b.WriteString(toolResult(i))
			} else {
				b.WriteString(answer(i))
			}
		}
		writeSession(t, d, idA, b.String(), time.Now())
		s := New(projects, nil)
		got, err := s.List(context.Background(), workDir)
		s.Close()
		if err != nil || len(got) != 1 {
			t.Fatalf("%v, %v", got, err)
		}
		if got[0].Summary != c.want {
			t.Errorf("first prompt before line %d: title %q, want %q", c.at, got[0].Summary, c.want)
		}
	}
}
