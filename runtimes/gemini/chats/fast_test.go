package chats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/internal/jsonl/jsonltest"
)

// lineSeeds are the lines of every testdata chat file, and lines of the
// shapes fastLine must leave to encoding/json or get right.
func lineSeeds(t testing.TB) [][]byte {
	out := jsonltest.Lines(t, filepath.Join("testdata", "*.jsonl"))
	for _, l := range []string{
		`{"$set":{"messages":7}}`,
		`{"$set":{"messages":null}}`,
		`{"$set":null}`,
		`{"$set":{"messages":[1,null,"a{b",{"id":"x","type":"user","content":"hi"},{"type":"user"},{"id":""}]}}`,
		`{"$set":{"messages":[{"id":"y","type":"gemini","content":[{"text":"a","thought":true},{"text":"b"}]}]},"$set":{}}`,
		`{"id":"x","type":"user","content":"plain"}`,
		`{"id":"x","type":"user","content":[{"text":5},{"text":"t"}]}`,
		`{"id":"x","type":"user","content":[{"text":"t","thought":"no"}]}`,
		`{"id":"x","type":"user","content":[{"functionResponse":{"id":"c","name":7}}]}`,
		`{"id":"x","type":"user","content":[{"functionResponse":{"id":"c","name":"n","response":{"output":"o"}}},null,{"Text":"T"}]}`,
		`{"id":"x","type":"user","content":[{"text":"<session_context>\nz"}]}`,
		`{"id":"x","type":"user","content":[{"text":"\u003csession_context>"}]}`,
		`{"ID":"x","type":"user","content":"plain"}`,
		`{"i\u0064":"x","type":"user","content":"plain"}`,
		`{"id":"x\u00e9","type":"gemini","content":"","thoughts":[1],"toolCalls":[2,{"id":null},{"id":"c\"1"}]}`,
		`{"id":"x","type":"gemini","content":[{"text":"","thought":false},{"text":"a","thought":"x"}]}`,
		`{"id":"x","type":"gemini","content":{"text":"a"},"thoughts":{},"toolCalls":"c"}`,
		`{"id":"x","type":"gemini","content":null,"thoughts":null,"toolCalls":null}`,
		`{"id":"x","type":null}`,
		`{"id":5,"type":"user"}`,
		`{"sessionId":"s","projectHash":"p","startTime":"t"}`,
		`{"sessionId":"s","projectHash":5}`,
		`{"sessionId":"s","id":"r","type":"user","content":"x"}`,
		"  \t{\"id\":\"x\",\"type\":\"user\",\"content\":\"lead\"}  ",
		"\f{\"id\":\"x\",\"type\":\"user\",\"content\":\"lead\"}",
		`{"id":"x","type":"user","content":"a","id":"y"}`,
		`[]`, `{}`, ``, `{"id":"x"`,
		// Gemini's own shapes, known by their bytes (fastLine's $set, head),
		// and near misses that must be walked or refused.
		`{"$set":{"lastUpdated":"2026-11-23T00:00:00.003Z"}}`,
		`{"$set":{"lastUpdated":"a\"b"}}`,
		`{"$set":{"lastUpdated":"a\u0041"}}`,
		"{\"$set\":{\"lastUpdated\":\"a\tb\"}}",
		`{"$set":{"lastUpdated":"x"}} `,
		`{"$set":{"lastUpdated":"x"},"$set":{"lastUpdated":"y"}}`,
		`{"$set":{"lastUpdated":"x","messages":[]}}`,
		`{"id":"u-1","timestamp":"t","type":"user","content":[{"text":"hi"}]}`,
		`{"id":"u-1","timestamp":"t","type":"user","content":[{"text":"hi"}],"id":"u-2"}`,
		`{"id":"u-1","timestamp":"t","type":"user","content":"a","type":"gemini"}`,
		`{"id":"u-1","timestamp":5,"type":"user","content":"a"}`,
		`{"id":"u-1","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c"}],"model":"m"}`,
		`{"id":"u-1", "timestamp":"t","type":"user","content":"a"}`,
		`{"id":7,"type":"user","content":"a"}`,
		`{"id":"u-1","timestamp":"t","type":"user","content":`,
		`{"id":"a","timestamp":"t","type":"gemini","content":"hi","thoughts":[{"subject":"s"}],"tokens":{"input":1},"model":"m"}`,
		`{"id":"a","timestamp":"t","type":"gemini","content":"","thoughts":[],"tokens":{},"model":"m","thoughts":[1]}`,
		`{"id":"a","timestamp":"t","type":"gemini","content":"","tokens":{},"thoughts":[{}],"model":"m"}`,
		`{"id":"a","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c1"},{"id":"c2"}],"model":"m","toolCalls":[]}`,
		`{"id":"a","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c1","ID":"x"}],"model":"m"}`,
		`{"id":"a","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c1"}],"model":`,
	} {
		out = append(out, []byte(l))
	}
	return out
}

// fastLineOf reports whether the line schema reads b without
// encoding/json (TestSchemas holds what it reads to encoding/json).
func fastLineOf(b []byte, _ bool) (Line, bool) {
	var l chatLine
	return Line{}, lineSchema.Read(b, &l)
}

// TestReplayKeepsNoPartOfLine: a replay's records say the same when each
// line's bytes are overwritten after it is replayed (parseLine borrows them).
// Each file is replayed twice, so that its records are found again by id
// (by their string too, under TestReplayWithHashCollisions).
func TestReplayKeepsNoPartOfLine(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, b...)
		twice := filepath.Join(t.TempDir(), "twice.jsonl")
		if err := os.WriteFile(twice, b, 0o600); err != nil {
			t.Fatal(err)
		}
		x, _ := indexView(t, twice, nil)
		y := &index{}
		for _, l := range strings.Split(string(b), "\n") {
			buf := []byte(l)
			y.add(buf)
			for i := range buf {
				buf[i] = '#'
			}
		}
		y.Finish() // as a scan ends
		if len(x.recs) != len(y.recs) || len(x.recs) == 0 {
			t.Fatalf("%s: %d records, %d replayed line by line", name, len(x.recs), len(y.recs))
		}
		for i := range x.recs {
			a, b := x.recs[i], y.recs[i]
			if x.str(a.allStrs()) != y.str(b.allStrs()) || a.idN != b.idN || a.promptN != b.promptN || a.visible != b.visible {
				t.Fatalf("%s: record %d: %+v, %+v once its line is overwritten", name, i, a, b)
			}
		}
	}
}
