package rollout

import (
	"testing"
)

// addCases are lines where an index's reading could go wrong, and whether
// each is a message.
var addCases = []struct {
	line string
	msg  bool
}{
	{`{"type":"response_item","payload":{"type":"reasoning","summary":[]}}`, true},
	{` { "payload" : { "item" : { "type" : "UserMessage" } , "type" : "item_completed" } , "type" : "event_msg" } `, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage"}}}`, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution"}}}`, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange"}}}`, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"Reasoning"}}}`, false},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":null}}`, false},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":"UserMessage"}}`, false},
	{`{"type":"event_msg","payload":{"type":"item_completed"}}`, false},
	{`{"type":"event_msg","payload":{"type":"token_count","item":{"type":"UserMessage"}}}`, false},
	{`{"type":"response_item","payload":{"type":"message","role":"assistant"}}`, false},
	{`{"type":"response_item","payload":{"type":"function_call_output","output":"\"type\":\"reasoning\"}"}}`, false},
	{`{"type":"response_item","payload":"reasoning"}`, false},
	{`{"type":"response_item","payload":null}`, false},
	{`{"type":"response_item","payload":{"type":5}}`, false},
	{`{"type":5,"payload":{"type":"reasoning"}}`, false},
	{`{"types":"response_item","payload":{"type":"reasoning"}}`, false}, // keys that begin as read ones do
	{`{"type":"response_item","payload":{"typed":"message","type":"reasoning"}}`, true},
	{`{"payload":{"type":"reasoning"}}`, false},
	{`{"type":"session_meta","payload":{"type":"reasoning"}}`, false}, // only two types hold messages
	{`{"x":"a\\","type":"response_item","payload":{"s":"}{][","type":"reasoning"}}`, true},
	{`{"type":"response_item","payload":{"type":"reasonin\u0067"}}`, true}, // escapes: decoded by ParseLine
	{`{"type":"response_item","payload":{"Type":"reasoning"}}`, true},      // encoding/json folds case
	{`{"TYPE":"response_item","payload":{"type":"reasoning"}}`, true},
	{`{"type":"response_item","Payload":{"type":"reasoning"}}`, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","ITEM":{"type":"FileChange"}}}`, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"tYpe":"FileChange"}}}`, true},
	{`{"type":"response_item","payload":{"type":"reasoning"},"type":"event_msg"}`, false},  // repeated: the decoder decides
	{`{"type":"response_item","payload":{"type":"reasoning"},"payload":{"id":"x"}}`, true}, // repeated objects merge
	{`{"type":"response_item","payload":{"type":"reasoning"}`, false},                      // torn
	{`{"type":"response_item","payload":{"type":"reasoning"}} x`, false},
	{`{"type":"response_item","payload":{"type":"reasoning",}}`, false},
	{`{"type":"session_meta","payload":{"id":"t","cwd":"/w","base_instructions":{"text":"\"cwd\":\"/x\""}}}`, false},
	{`{"type":"session_meta","payload":{"id":5,"cwd":null}}`, false},
	{`{"type":"session_meta","payload":[]}`, false},
	{`{"type":"session_meta","payload":{"id":"t","CWD":"/w"}}`, false}, // classify vouches; sessionMeta defers
	{`{"type":"session_meta","payload":{"id":"t","cwd":"/w","cwd":"/v"}}`, false},
	{`{"type":"session_meta","payload":{"id":"t","cwd":"C:\\w"}}`, false},
	// Read where they are (the type first): strings holding brackets and
	// quotes, and repeats inside the item or the payload.
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","text":"}{\"type\":\"x\""},"extra":[1,{"a":"]"}]}}`, true},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","type":"Reasoning"}}}`, false},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage"},"item":null}}`, false},
	{`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage"}},"payload":{"x":1}}`, true},
	{`[1]`, false},
	{``, false},
}

// TestAddCountsAsDecoded: an index counts a line as a message when, and
// only when, encoding/json's reading of it (ParseLine) is one.
func TestAddCountsAsDecoded(t *testing.T) {
	for _, c := range addCases {
		l, err := ParseLine([]byte(c.line))
		if got := err == nil && isMessage(l); got != c.msg {
			t.Errorf("%s: ParseLine says message %v, want %v", c.line, got, c.msg)
		}
		if got := (&index{}).add([]byte(c.line)); got != c.msg {
			t.Errorf("%s: add says message %v, want %v", c.line, got, c.msg)
		}
	}
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
