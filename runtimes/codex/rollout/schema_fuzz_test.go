package rollout

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/internal/jsonl/jsonltest"
	"github.com/cdevd/cdevd/testdoubles/claudegen"
	"github.com/cdevd/cdevd/testdoubles/codexgen"
)

// schemaCases are this package's schemas, each held to encoding/json, with
// where its objects are in a line (keys between dots, [] for each element
// of an array; "": the line) and how many of those in the seed lines it
// must read: a schema that left most of them to encoding/json would prove
// little, and would make scans and pages slow.
var schemaCases = []struct {
	c        jsonltest.Checker
	paths    []string
	minTaken int
}{
	{jsonltest.Case[Line]{Label: "line", Schema: lineSchema}, []string{""}, 120},
	{jsonltest.Case[Payload]{Label: "payload", Schema: payloadSchema}, []string{"payload"}, 120},
	{jsonltest.Case[Item]{Label: "item", Schema: itemSchema}, []string{"payload.item"}, 32},
	{jsonltest.Case[textPart]{Label: "text", Schema: textSchema}, []string{"payload.item.content[]", "payload.summary[]"}, 18},
	{jsonltest.Case[ChangeEntry]{Label: "change", Schema: changeSchema}, []string{"payload.item.changes[]"}, 3},
	{jsonltest.Case[ChangeKind]{Label: "change kind", Schema: kindSchema}, []string{"payload.item.changes[].kind"}, 3},
	{jsonltest.Case[tokenInfo]{Label: "token info", Schema: infoSchema}, []string{"payload.info"}, 10},
	{jsonltest.Case[codexUsage]{Label: "usage", Schema: usageSchema},
		[]string{"payload.info.total_token_usage", "payload.info.last_token_usage"}, 0},
}

// at returns the values at path (see schemaCases) in the JSON value b.
func at(b []byte, path string) [][]byte {
	if path == "" {
		return [][]byte{b}
	}
	step, rest, _ := strings.Cut(path, ".")
	var out [][]byte
	if key, ok := strings.CutSuffix(step, "[]"); ok {
		for _, v := range at(b, key) {
			var elems []json.RawMessage
			_ = json.Unmarshal(v, &elems)
			for _, e := range elems {
				out = append(out, at(e, rest)...)
			}
		}
		return out
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil || obj[step] == nil {
		return nil
	}
	return at(obj[step], rest)
}

// seedLines are the lines of the testdata rollouts (the real CLI's and
// synthetic.jsonl), lines as codexgen writes them, and shapes a schema must
// leave to encoding/json or get right.
func seedLines(t testing.TB) [][]byte {
	out := jsonltest.Lines(t, filepath.Join("testdata", "exec.jsonl"), filepath.Join("testdata", "synthetic.jsonl"))
	g := codexgen.New(threadA, "/home/user/p")
	g.Pad = claudegen.LoremPad + "\n\t\"é\""
	lines := g.Header()
	for range 4 {
		lines = append(lines, g.Turn()...)
	}
	lines = append(lines, countLine("2026-11-23T00:00:00Z", 3, 2), countLine(`2026-11-23T00:00:00\u005a`, 3, 2))
	for _, c := range addCases {
		lines = append(lines, c.line)
	}
	lines = append(lines,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c","command":["ls","-l"],"status":"completed","aggregated_output":"a\nb","exit_code":0}}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","id":"f","changes":[{"path":"a","kind":{"type":"update","move_path":"b"},"diff":"@@"}],"status":"completed"}}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","changes":[{"path":"b","kind":{"type":"add"}},{"path":5}]}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","changes":[{"path":"c","kind":{"type":"delete"},"diff":"-x\n"},{"path":"d","kind":{"move_path":null}}]}}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"m","content":[{"type":"Text","text":"hi"}]}}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"x"}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"a":tru}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","exit_code":1.5}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","exit_code":null}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","exit_code":3000000000,"command":"ls"}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"x","Type":"y"}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed"},"payload":{"id":"p"}}`,
		`{"type":"event_msg","payload":{"item":{"exit_code":-1,"command":[]}}}`,
		`{"type":"response_item","payload":{"type":"reasoning","summary":[{"text":5}]}}`,
		`{"type":"response_item","payload":{"type":"message","content":[{"type":"output_text","text":"\u00e9\n"}]}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null,"item":[1]}}`,
		`{"timestamp":5,"type":"event_msg","payload":{"type":"token_count","info":"x"}}`,
		`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1.5}}}}`,
		`{"timestamp":"t\u005a","type":"response_item","payload":"reasoning"}`,
		` {"type":"x","payload":{}} `, `{"type":"x","payload":{}} x`, `{"ſ":1}`, `{}`, `[]`,
	)
	for _, l := range lines {
		out = append(out, []byte(l))
	}
	return out
}

// schemaSeeds are seedLines and every object nested in them, as written:
// what the schemas of the levels below a line read.
func schemaSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, b := range seedLines(t) {
		out = append(out, b)
		out = nested(out, b)
	}
	return out
}

// nested appends the objects inside the JSON value b, at any depth.
func nested(out [][]byte, b []byte) [][]byte {
	var obj map[string]json.RawMessage
	var arr []json.RawMessage
	switch {
	case json.Unmarshal(b, &obj) == nil:
		for _, v := range obj {
			if bytes.HasPrefix(v, []byte("{")) {
				out = append(out, v)
			}
			out = nested(out, v)
		}
	case json.Unmarshal(b, &arr) == nil:
		for _, v := range arr {
			if bytes.HasPrefix(v, []byte("{")) {
				out = append(out, v)
			}
			out = nested(out, v)
		}
	}
	return out
}

// TestSchemas: each schema reads what it takes of any seed (lines and
// every object in them) as encoding/json decodes it into its type, and
// takes enough of the objects it is for.
func TestSchemas(t *testing.T) {
	all, lines := schemaSeeds(t), seedLines(t)
	for _, sc := range schemaCases {
		sc.c.Took(t, all)
		var own [][]byte
		for _, l := range lines {
			for _, p := range sc.paths {
				own = append(own, at(l, p)...)
			}
		}
		if n := sc.c.Took(t, own); n < sc.minTaken {
			t.Errorf("%+v took %d of its %d objects, want %d or more", sc.c, n, len(own), sc.minTaken)
		} else {
			t.Logf("%+v took %d of its %d objects", sc.c, n, len(own))
		}
	}
}

// TestSchemaTakesCodexLines: the line schema reads every line the real CLI
// and codexgen write but those that only encoding/json reads rightly
// (a token_count's info of null, before the first model call), so that a
// scan and a page do not fall back on the decoder.
func TestSchemaTakesCodexLines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "exec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	g := codexgen.New(threadA, "/home/user/p")
	g.Pad = claudegen.LoremPad
	lines := append(strings.Split(strings.TrimSpace(string(b)), "\n"), g.Header()...)
	lines = append(append(lines, g.Turn()...), g.Turn()...)
	for _, l := range lines {
		var got Line
		if !lineSchema.Read([]byte(l), &got) && !strings.Contains(l, `"info":null`) {
			t.Errorf("the schema refused %s", l)
		}
	}
}

// FuzzSchemas holds each schema to encoding/json (jsonltest.Case) on any
// input; and a line the page's reading takes, even one encoding/json would
// refuse, gives a message that encodes (a page is one reply).
func FuzzSchemas(f *testing.F) {
	for _, b := range schemaSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, sc := range schemaCases {
			sc.c.Check(t, b)
		}
		var l Line
		if _, err := readLine(nil, b, &l); err != nil {
			return
		}
		if m, ok := ToMessage(threadA, 7, l); ok {
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("%s: message does not encode: %v", b, err)
			}
		}
	})
}
