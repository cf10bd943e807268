package rollout

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// checkClassify fails when classify vouches for a valid JSON line and says
// other than ParseLine and isMessage would.
func checkClassify(t *testing.T, b []byte) {
	t.Helper()
	f, ok := classify(b)
	// A scan's classify, which remembers the keys of the lines before (the
	// real CLI's, the cases here, and b itself), says what classify says.
	sh := new(jsonl.Shape)
	for _, l := range shapeLines {
		classifyIn(sh, l)
	}
	for range 2 {
		sf, sok := classifyIn(sh, b)
		if sok != ok || !reflect.DeepEqual(sf, f) {
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
	if f.isMessage() != isMessage(l) || string(f.typ) != l.Type {
		t.Fatalf("classify: message %v, type %q; ParseLine: %v, %q (%s)", f.isMessage(), f.typ, isMessage(l), l.Type, l.kind())
	}
	if (l.Type == "event_msg" || l.Type == "response_item") && string(f.ptyp) != l.Payload.Type {
		t.Fatalf("classify: payload type %q; ParseLine: %q", f.ptyp, l.Payload.Type)
	}
}

// shapeLines are the lines of the rollouts in testdata and the cases
// below, which checkClassify's shapes have seen before each line it checks.
var shapeLines = func() [][]byte {
	var ls [][]byte
	for _, name := range []string{"exec.jsonl", "synthetic.jsonl"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
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
	{`{"type":"response_item","payload":{"type":"reasoning","summary":[]}}`, true, true},
	{` { "payload" : { "item" : { "type" : "UserMessage" } , "type" : "item_completed" } , "type" : "event_msg" } `, true, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage"}}}`, true, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution"}}}`, true, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange"}}}`, true, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"Reasoning"}}}`, true, false},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":null}}`, true, false},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":"UserMessage"}}`, true, false},
	{`{"type":"event_msg","payload":{"type":"item_completed"}}`, true, false},
	{`{"type":"event_msg","payload":{"type":"token_count","item":{"type":"UserMessage"}}}`, true, false},
	{`{"type":"response_item","payload":{"type":"message","role":"assistant"}}`, true, false},
	{`{"type":"response_item","payload":{"type":"function_call_output","output":"\"type\":\"reasoning\"}"}}`, true, false},
	{`{"type":"response_item","payload":"reasoning"}`, true, false},
	{`{"type":"response_item","payload":null}`, true, false},
	{`{"type":"response_item","payload":{"type":5}}`, true, false},
	{`{"type":5,"payload":{"type":"reasoning"}}`, true, false},
	{`{"types":"response_item","payload":{"type":"reasoning"}}`, true, false}, // keys that begin as read ones do
	{`{"type":"response_item","payload":{"typed":"message","type":"reasoning"}}`, true, true},
	{`{"payload":{"type":"reasoning"}}`, true, false},
	{`{"type":"session_meta","payload":{"type":"reasoning"}}`, true, false}, // only two types hold messages
	{`{"x":"a\\","type":"response_item","payload":{"s":"}{][","type":"reasoning"}}`, true, true},
	{`{"type":"response_item","payload":{"type":"reasonin\u0067"}}`, false, true}, // escapes: decoded by ParseLine
	{`{"type":"response_item","payload":{"Type":"reasoning"}}`, false, true},      // encoding/json folds case
	{`{"TYPE":"response_item","payload":{"type":"reasoning"}}`, false, true},
	{`{"type":"response_item","Payload":{"type":"reasoning"}}`, false, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","ITEM":{"type":"FileChange"}}}`, false, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"tYpe":"FileChange"}}}`, false, true},
	{`{"type":"response_item","payload":{"type":"reasoning"},"type":"event_msg"}`, false, false},  // repeated: the decoder decides
	{`{"type":"response_item","payload":{"type":"reasoning"},"payload":{"id":"x"}}`, false, true}, // repeated objects merge
	{`{"type":"response_item","payload":{"type":"reasoning"}`, false, false},                      // torn
	{`{"type":"response_item","payload":{"type":"reasoning"}} x`, false, false},
	{`{"type":"response_item","payload":{"type":"reasoning",}}`, false, false},
	{`{"type":"session_meta","payload":{"id":"t","cwd":"/w","base_instructions":{"text":"\"cwd\":\"/x\""}}}`, true, false},
	{`{"type":"session_meta","payload":{"id":5,"cwd":null}}`, true, false},
	{`{"type":"session_meta","payload":[]}`, true, false},
	{`{"type":"session_meta","payload":{"id":"t","CWD":"/w"}}`, true, false}, // classify vouches; sessionMeta defers
	{`{"type":"session_meta","payload":{"id":"t","cwd":"/w","cwd":"/v"}}`, true, false},
	{`{"type":"session_meta","payload":{"id":"t","cwd":"C:\\w"}}`, true, false},
	// Read where they are (the type first): strings holding brackets and
	// quotes, and repeats inside the item or the payload.
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","text":"}{\"type\":\"x\""},"extra":[1,{"a":"]"}]}}`, true, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","type":"Reasoning"}}}`, false, false},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage"},"item":null}}`, false, false},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage"}},"payload":{"x":1}}`, false, true},
	{`[1]`, false, false},
	{``, false, false},
}

func TestClassify(t *testing.T) {
	for _, c := range classifyCases {
		f, ok := classify([]byte(c.line))
		if ok != c.ok || (ok && f.isMessage() != c.msg) {
			t.Errorf("%s: ok %v, message %v; want %v, %v", c.line, ok, f.isMessage(), c.ok, c.msg)
		}
		// What the decoder makes of it is what an index takes.
		l, err := ParseLine([]byte(c.line))
		if got := err == nil && isMessage(l); got != c.msg {
			t.Errorf("%s: ParseLine says message %v, want %v", c.line, got, c.msg)
		}
		checkClassify(t, []byte(c.line))
	}
}

// FuzzClassify: whatever classify vouches for in a valid line is what
// ParseLine says, so that counts from a scan agree with pages decoded.
func FuzzClassify(f *testing.F) {
	for _, name := range []string{"exec.jsonl", "synthetic.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	for _, c := range classifyCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(checkClassify)
}

// TestIndexMerge: an index gathered in two parts and merged says what one
// gathered over the whole says, wherever the cut falls.
func TestIndexMerge(t *testing.T) {
	lines := []string{
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u0","content":[{"type":"image"}]}}}`,
		`{"type":"session_meta","payload":{"id":"first","cwd":""}}`,
		`{"type":"session_meta","payload":{"id":"second","cwd":"/w"}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u1","content":[{"type":"text","text":"the prompt"}]}}}`,
		`{"type":"session_meta","payload":{"id":"third","cwd":"/v"}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u2","content":[{"type":"text","text":"later"}]}}}`,
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
		if x.id != whole.id || x.cwd != whole.cwd || x.prompt != whole.prompt {
			t.Errorf("cut at %d: %+v; whole: %+v", cut, *x, *whole)
		}
	}
	if whole.id != "second" || whole.cwd != "/w" || whole.prompt != "the prompt" {
		t.Errorf("whole: %+v", *whole)
	}
}

// TestIndexMeta: the thread id and cwd an index takes from a rollout's
// first session_meta that names a cwd are what ParseLine reads of it,
// whatever the shape of its payload (which the index reads the quick way
// when it can).
func TestIndexMeta(t *testing.T) {
	for _, payload := range []string{
		`{"id":"t","cwd":"/w","x":{"cwd":"/v"}}`,
		`{"id":"t"}`,
		`"x"`,
		`{"id":"t","CWD":"/w"}`,
		`{"id":"t","cw\u0064":"/w"}`,
		`{"id":"t","cwd":"/w","cwd":"/v"}`,
		`{"id":"t","cwd":"C:\\w"}`,
		`{"id":5,"cwd":"/w"}`,
	} {
		line := `{"type":"session_meta","payload":` + payload + `}`
		l, err := ParseLine([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		want := [2]string{}
		if l.Payload.Cwd != "" {
			want = [2]string{l.Payload.ID, l.Payload.Cwd}
		}
		x := &index{}
		x.add([]byte(line))
		x.add([]byte(`{"type":"session_meta","payload":{"id":"later","cwd":"/later"}}`))
		if got := [2]string{x.id, x.cwd}; want != ([2]string{}) && got != want {
			t.Errorf("%s: id and cwd %q; ParseLine: %q", payload, got, want)
		}
		if want == ([2]string{}) && x.cwd != "/later" {
			t.Errorf("%s: names no cwd, yet the index took %q", payload, x.cwd)
		}
	}
}
