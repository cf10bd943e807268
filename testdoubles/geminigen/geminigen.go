// Package geminigen writes synthetic Gemini CLI chat files: the JSONL files
// Gemini keeps under ~/.gemini/tmp/<project>/chats, in the shapes the pinned
// CLI writes (a header, the session context, then per turn the prompt, a
// tool call written again with its result, the function response, the
// answer with its thoughts and tokens, and a `$set` of lastUpdated). It is
// what `cdevd bench` measures Gemini history on.
package geminigen

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Gen produces the lines of one chat file. Use New.
type Gen struct {
	SessionID string
	Cwd       string
	// Pad is appended to answers and tool outputs, to reach a size with
	// realistic lines.
	Pad string

	n, turns, msgs int
}

// New returns a generator for session id run in cwd.
func New(id, cwd string) *Gen { return &Gen{SessionID: id, Cwd: cwd} }

// Path is where Gemini keeps the chat file of the generator's session
// under geminiHome (~/.gemini).
func (g *Gen) Path(geminiHome string) string {
	return filepath.Join(geminiHome, "tmp", filepath.Base(g.Cwd), "chats",
		"session-2026-11-23T00-00-"+g.SessionID[:min(8, len(g.SessionID))]+".jsonl")
}

// Messages is how many of the records written so far are messages to cdevd.
func (g *Gen) Messages() int { return g.msgs }

func str(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ts is the timestamp of the next record.
func (g *Gen) ts() string {
	i := g.n
	g.n++
	return fmt.Sprintf("2026-11-23T%02d:%02d:%02d.%03dZ", i/3600000%24, i/60000%60, i/1000%60, i%1000)
}

// Header returns the lines Gemini writes when the session begins.
func (g *Gen) Header() []string {
	h := sha256.Sum256([]byte(g.Cwd))
	t := g.ts()
	return []string{
		fmt.Sprintf(`{"sessionId":%s,"projectHash":%q,"startTime":%q,"lastUpdated":%q,"kind":"main"}`, str(g.SessionID), hex.EncodeToString(h[:]), t, t),
		fmt.Sprintf(`{"$set":{"messages":[{"id":"ctx-%s","timestamp":%q,"type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat."}]}]}}`, g.SessionID, g.ts()),
	}
}

// Turn returns the next turn's lines: the prompt, a tool call (every other
// turn), the answer, and the $set that follows.
func (g *Gen) Turn() []string {
	t := g.turns
	g.turns++
	out := []string{fmt.Sprintf(`{"id":"u-%d","timestamp":%q,"type":"user","content":[{"text":"prompt %d"}]}`, t, g.ts(), t)}
	g.msgs++
	if t%2 == 1 {
		call, ts := fmt.Sprintf("run_shell_command__%d_0", t), g.ts()
		args := fmt.Sprintf(`{"command":"echo step %d","description":"run cmd"}`, t)
		resp := fmt.Sprintf(`{"functionResponse":{"id":%q,"name":"run_shell_command","response":{"output":%s}}}`, call, str(fmt.Sprintf("step %d\n%s", t, g.Pad)))
		out = append(out,
			fmt.Sprintf(`{"id":"c-%d","timestamp":%q,"type":"gemini","content":"","toolCalls":[{"id":%q,"name":"run_shell_command","args":%s,"status":"executing","timestamp":%q}],"model":"gemini-2.5-flash"}`, t, ts, call, args, ts),
			fmt.Sprintf(`{"id":"c-%d","timestamp":%q,"type":"gemini","content":"","toolCalls":[{"id":%q,"name":"run_shell_command","args":%s,"result":[%s],"status":"success","timestamp":%q,"resultDisplay":"","displayName":"Shell","renderOutputAsMarkdown":false}],"model":"gemini-2.5-flash"}`, t, ts, call, args, resp, ts),
			fmt.Sprintf(`{"id":"r-%d","timestamp":%q,"type":"user","content":[%s]}`, t, g.ts(), resp),
		)
		g.msgs++
	}
	ts := g.ts()
	out = append(out,
		fmt.Sprintf(`{"id":"a-%d","timestamp":%q,"type":"gemini","content":%s,"thoughts":[{"subject":"Pondering","description":"Pondering step %d.","timestamp":%q}],"tokens":{"input":30,"output":2,"cached":0,"thoughts":4,"tool":0,"total":36},"model":"gemini-2.5-flash"}`,
			t, ts, str(fmt.Sprintf("answer %d%s", t, g.Pad)), t, ts),
		fmt.Sprintf(`{"$set":{"lastUpdated":%q}}`, ts),
	)
	g.msgs++
	return out
}

// Write writes the header and then turns to path until the file holds at
// least size bytes or lines lines, whichever is set.
func (g *Gen) Write(path string, size int64, lines int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	written := 0
	put := func(ls []string) {
		for _, l := range ls {
			k, _ := w.WriteString(l + "\n")
			n += int64(k)
			written++
		}
	}
	put(g.Header())
	for (size > 0 && n < size) || (lines > 0 && written < lines) {
		put(g.Turn())
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
