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
	"github.com/cdevd/cdevd/rpc"
)

// checkClassify fails when classify vouches for a valid JSON line and says
// other than ParseLine and isMessage would, or when a scan's classify, which
// remembers the keys of the lines before (the real CLI's, the cases here,
// and b itself), says other than classify.
func checkClassify(t *testing.T, b []byte) {
	t.Helper()
	f, ok := classify(b)
	sh := new(jsonl.Shape)
	for _, l := range shapeLines {
		classifyIn(sh, l)
	}
	for range 2 {
		if sf, sok := classifyIn(sh, b); sok != ok || !reflect.DeepEqual(sf, f) {
			t.Fatalf("%q: a scan's classify %+v, %v; classify %+v, %v", b, sf, sok, f, ok)
		}
	}
	if !ok || !json.Valid(b) {
		return
	}
	l, err := ParseLine(b)
	if err != nil {
		t.Fatalf("valid line refused: %v", err)
	}
	if f.isMessage() != isMessage(l) || string(f.typ) != l.Type || string(f.branch) != l.GitBranch {
		t.Fatalf("classify: message %v, type %q, branch %q; ParseLine: %v, %q, %q",
			f.isMessage(), f.typ, f.branch, isMessage(l), l.Type, l.GitBranch)
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

// classifyCases are lines where a scan that does not decode could go wrong.
var classifyCases = []struct {
	line    string
	ok, msg bool
}{
	{`{"type":"user","message":{"content":"hi"}}`, true, true},
	{` { "type" : "assistant" , "message" : [ ] } `, true, true},
	{`{"type":"user","message":null}`, true, false},
	{`{"type":"user"}`, true, false},
	{`{"type":"user","message":{},"isMeta":true}`, true, false},
	{`{"type":"user","message":{},"isSidechain":true}`, true, false},
	{`{"type":"user","message":{},"isMeta":"true"}`, true, true},    // a type error leaves it false
	{`{"type":"user","message":{},"isSidechain":null}`, true, true}, // null leaves it false
	{`{"type":5,"message":{}}`, true, false},
	{`{"types":"user","message":{}}`, true, false},                // begins as a fact key does
	{`{"message":{"type":"user"},"type":"summary"}`, true, false}, // only the top level counts
	{`{"x":"\"type\":\"user\"","type":"attachment","message":{}}`, true, false},
	{`{"x":"a\\","type":"user","message":{"s":"}{]["}}`, true, true}, // backslash runs, brackets in strings
	{`{"type":"us\u0065r","message":{}}`, false, true},               // escapes: decoded by ParseLine
	{`{"Type":"user","message":{}}`, false, true},                    // encoding/json folds case
	{`{"type":"user","message":{},"type":"summary"}`, false, false},  // repeated: the decoder decides
	{`{"typ\u0065":"user","message":{}}`, false, true},
	{`{"type":"user","message":{}`, false, false}, // torn
	{`{"type":"user","message":{}} x`, false, false},
	{`[1]`, false, false},
	{``, false, false},
}

func TestClassify(t *testing.T) {
	for _, c := range classifyCases {
		f, ok := classify([]byte(c.line))
		if ok != c.ok || (ok && f.isMessage() != c.msg) {
			t.Errorf("%s: ok %v, message %v; want %v, %v", c.line, ok, f.isMessage(), c.ok, c.msg)
		}
		if !ok {
			// What the decoder makes of it is what an index takes.
			l, err := ParseLine([]byte(c.line))
			if got := err == nil && isMessage(l); got != c.msg {
				t.Errorf("%s: ParseLine says message %v, want %v", c.line, got, c.msg)
			}
		}
		checkClassify(t, []byte(c.line))
	}
}

// FuzzClassify: whatever classify vouches for in a valid line is what
// ParseLine says, so that counts from a scan agree with pages decoded.
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
		if x.title() != whole.title() || x.prompt != whole.prompt || x.branch != whole.branch ||
			x.customTitle != whole.customTitle || x.aiTitle != whole.aiTitle || x.summary != whole.summary {
			t.Errorf("cut at %d: %+v; whole: %+v", cut, *x, *whole)
		}
	}
	if whole.title() != "ai name" || whole.prompt != "the prompt" || whole.branch != "feature" {
		t.Errorf("whole: title %q, prompt %q, branch %q", whole.title(), whole.prompt, whole.branch)
	}
}

// FuzzDecodeMessage: the one-pass decoding of a page's valid JSON line
// gives exactly what ParseLine and ToMessage give.
func FuzzDecodeMessage(f *testing.F) {
	seedLines(f)
	for _, c := range classifyCases {
		f.Add([]byte(c.line))
	}
	for _, s := range []string{
		`{"type":"user","message":{"content":"typed"},"uuid":"u"}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"a"},"x",5]},"uuid":"u"}`,
		`{"type":"assistant","message":{"id":"m","content":null,"usage":{"input_tokens":"x"}}}`,
		`{"type":"assistant","message":5}`,
		`{"type":"assistant","message":{"id":"a"},"message":{"role":"r"}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","input":{"a":[1]}}]},"timestamp":"bad"}`,
	} {
		f.Add([]byte(s))
	}
	defer func(n func() time.Time) { now = n }(now)
	now = func() time.Time { return time.Unix(1e9, 0) }
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotOK := decodeMessage("s", b)
		if !json.Valid(b) {
			// Not compared: quickLine does not validate what it skips (see
			// it). But what it takes must encode, a page being one reply.
			if _, err := json.Marshal(got); gotOK && err != nil {
				t.Fatalf("%s: message does not encode: %v", b, err)
			}
			return
		}
		var want rpc.Message
		l, err := ParseLine(b)
		wantOK := err == nil
		if wantOK {
			want, wantOK = ToMessage("s", l)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if gotOK != wantOK || string(gj) != string(wj) {
			t.Fatalf("one pass: %v %s\nlong way: %v %s", gotOK, gj, wantOK, wj)
		}
	})
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
