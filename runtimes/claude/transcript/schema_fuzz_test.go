package transcript

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/internal/jsonl/jsonltest"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/testdoubles/claudegen"
)

// schemaCases are this package's schemas, each with how many of the seeds
// of its level (schemaSeeds) it must take at least: a schema that took
// none would prove nothing.
var schemaCases = []struct {
	c    jsonltest.Checker
	took int
}{
	{jsonltest.Case[Line]{Label: "line", Schema: lineSchema}, 80},
	{jsonltest.Case[message]{Label: "message", Schema: messageSchema}, 40},
	{jsonltest.Case[rpc.ContentBlock]{Label: "block", Schema: blockSchema}, 35},
	{jsonltest.Case[rpc.Usage]{Label: "usage", Schema: usageSchema}, 15},
}

// schemaSeeds are, for each schema of schemaCases, the values of its
// level: the lines of testdata/lines (the real CLI's), the generator's
// and shapes where a schema must refuse or read right; the messages inside
// them; their blocks; their usages.
func schemaSeeds(t testing.TB) [4][][]byte {
	lines := jsonltest.Lines(t, filepath.Join("testdata", "lines", "*.jsonl"))
	g := claudegen.New("00000000-0000-4000-8000-000000000001", "/home/user/p")
	for range 3 {
		lines = append(lines, []byte(g.Message()), []byte(g.Noise()))
	}
	for _, c := range classifyCases {
		lines = append(lines, []byte(c.line))
	}
	for _, l := range []string{
		`{"type":"assistant","uuid":"u","timestamp":"2026-11-23T00:00:00.000Z","message":{"id":"m","role":"assistant","model":"claude","content":[{"type":"text","text":"a\nb"},{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"output_tokens":4,"cache_creation_input_tokens":5,"cache_read_input_tokens":6,"cache_creation":{"ephemeral_5m_input_tokens":0},"service_tier":"standard"},"stop_reason":null}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out","is_error":false}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"}],"is_error":true}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}}`,
		`{"type":"user","message":{"role":"user","content":"typed"},"uuid":"u"}`,
		`{"type":"user","message":{"content":""},"session_id":"s","sessionId":5}`,
		`{"type":"user","message":{"content":[{"type":"tool_use","input":{"a":tru}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":{"a":"\x"}}]},"junk":{"a":tru}}`,
		`{"type":"user","message":{"content":[{"type":"text","Text":"T"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"a","text":"b"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","is_error":"yes"}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","input":null}]}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"a"},"x",5]},"uuid":"u"}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":1.5}}}`,
		`{"type":"assistant","message":{"usage":{"input_tokens":-1,"Output_tokens":2}}}`,
		`{"type":"assistant","message":{"usage":null}}`,
		`{"type":"assistant","message":{"id":"m","content":null,"usage":{"input_tokens":"x"}}}`,
		`{"type":"assistant","message":{"content":[5]}}`,
		`{"type":"assistant","message":{"content":[]},"isMeta":false,"isSidechain":false}`,
		`{"type":"assistant","message":{"content":[]},"isMeta":1}`,
		`{"type":"assistant","message":{"id":"\ud83d\ude00"}}`,
		`{"type":"assistant","message":5}`,
		`{"type":"assistant","message":{"id":"a"},"message":{"role":"r"}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","input":{"a":[1]}}]},"timestamp":"bad"}`,
		`{"type":"custom-title","customTitle":"n\u00e9"}`, `{"type":"ai-title","aiTitle":5}`,
		`{"type":5,"isMeta":"true","message":null,"gitBranch":"a\"b"}`,
		`{"typ\u0065":"user"}`, `{"ſ":1}`, `{"TYPE":"user"}`, `{"sessionid":"s"}`,
		` {"type":"assistant","message":{}} `, `{}`, `[]`, `{"type":"user"`, `{"type":"user"} x`,
	} {
		lines = append(lines, []byte(l))
	}
	seeds := [4][][]byte{lines}
	for _, l := range lines {
		var line struct{ Message json.RawMessage }
		var msg struct {
			Content []json.RawMessage
			Usage   json.RawMessage
		}
		if json.Unmarshal(l, &line) != nil || json.Unmarshal(line.Message, &msg) != nil {
			continue
		}
		seeds[1] = append(seeds[1], line.Message)
		if msg.Usage != nil {
			seeds[3] = append(seeds[3], msg.Usage)
		}
		for _, c := range msg.Content {
			seeds[2] = append(seeds[2], c)
		}
	}
	return seeds
}

// TestSchemas: each schema reads its seeds as encoding/json decodes them,
// and takes enough of them to prove it.
func TestSchemas(t *testing.T) {
	seeds := schemaSeeds(t)
	for i, sc := range schemaCases {
		for _, level := range seeds {
			sc.c.Took(t, level)
		}
		took := sc.c.Took(t, seeds[i])
		t.Logf("%T: took %d of its %d seeds", sc.c, took, len(seeds[i]))
		if took < sc.took {
			t.Errorf("%T took only %d of its seeds, want %d at least", sc.c, took, sc.took)
		}
	}
}

// FuzzSchemas holds this package's schemas to encoding/json: whatever a
// schema reads, if it is valid JSON, encoding/json decodes into the same
// value, without an error.
func FuzzSchemas(f *testing.F) {
	for _, level := range schemaSeeds(f) {
		for _, b := range level {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, sc := range schemaCases {
			sc.c.Check(t, b)
		}
	})
}
