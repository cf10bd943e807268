package acp

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// An edit's result carries the files it changed with their text before
// and after (clients draw them as diffs): from the update that completes
// it, else from its announcement (here Gemini's permission request) when
// that update repeats no content; none when the edit failed.
func TestEditResultDiffs(t *testing.T) {
	var c geminiCase
	for _, gc := range geminiCases {
		if gc.name == "write-file" {
			c = gc
		}
	}
	in, err := os.ReadFile(filepath.Join(goldenDir, c.name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const completing = `"sessionUpdate":"tool_call_update","toolCallId":"write_file__write_file_1700000000001_0","status":"completed",`
	if !bytes.Contains(in, []byte(completing)) {
		t.Fatalf("%s.jsonl has no completing update", c.name)
	}
	stripped := stripContent(in, completing)
	if bytes.Count(stripped, []byte(`"newText"`)) != bytes.Count(in, []byte(`"newText"`))-1 {
		t.Fatal("the completing update's diff was not stripped")
	}
	want := rpc.ToolDiff{Path: wsMark + "/edited.txt", OldText: "", NewText: "hello from gemini\n"}
	for _, tc := range []struct {
		name    string
		capture []byte
		want    []rpc.ToolDiff
	}{
		{"diff in the update", in, []rpc.ToolDiff{want}},
		{"diff in the announcement only", stripped, []rpc.ToolDiff{want}},
		{"failed", bytes.Replace(stripped, []byte(`"status":"completed"`), []byte(`"status":"failed"`), 1), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, evs := replay(t, c, tc.capture)
			var results []rpc.ContentBlock
			for _, ev := range evs {
				if m, ok := ev.(runtimes.MessageCompleted); ok {
					for _, b := range m.Message.Message.Content {
						if b.Type == rpc.BlockToolResult {
							results = append(results, b)
						}
					}
				}
			}
			if len(results) != 1 {
				t.Fatalf("%d results, want 1: %+v", len(results), results)
			}
			got := results[0].Diffs
			if len(got) != len(tc.want) || (len(got) == 1 && got[0] != tc.want[0]) {
				t.Errorf("diffs %+v, want %+v", got, tc.want)
			}
			if results[0].ExitCode != nil {
				t.Errorf("an ACP result with an exit code: %d", *results[0].ExitCode)
			}
		})
	}
}

// stripContent empties the content of the update the line holding marker
// carries.
func stripContent(capture []byte, marker string) []byte {
	var out [][]byte
	for _, line := range bytes.Split(capture, []byte("\n")) {
		if bytes.Contains(line, []byte(marker)) {
			i := bytes.Index(line, []byte(`"content":[`))
			j := bytes.Index(line, []byte(`],"locations"`))
			if i > 0 && j > i {
				line = append(append(append([]byte{}, line[:i]...), []byte(`"content":[]`)...), line[j+1:]...)
			}
		}
		out = append(out, line)
	}
	return bytes.Join(out, []byte("\n"))
}
