// Package claudegen writes synthetic Claude Code transcripts: the JSONL
// lines the CLI stores under ~/.claude/projects, in the shapes cdevd reads
// (prompts, answers, tool calls and their results) with a line that is not a
// message after each, as real transcripts have. It is what `cdevd bench`
// measures on, and any test that needs a big or many transcripts can use it.
package claudegen

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Gen produces the lines of one session. The zero value is not usable; use
// New.
type Gen struct {
	SessionID string
	Cwd       string
	// Pad is appended to answer texts and tool results, to reach a size
	// with realistic lines (a real answer is often a kilobyte or more).
	Pad string
	n   int
}

// New returns a generator for session id in directory cwd.
func New(id, cwd string) *Gen { return &Gen{SessionID: id, Cwd: cwd} }

// Messages is how many message lines the generator has produced.
func (g *Gen) Messages() int { return g.n }

// MessageUUID is the uuid of the i-th message of any generated session.
func MessageUUID(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }

// Message returns the next message line, without its newline: prompts and
// answers alternate, and every other answer is a tool call and its result.
func (g *Gen) Message() string {
	i := g.n
	g.n++
	h := fmt.Sprintf(`"parentUuid":null,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.1.197","gitBranch":"main","uuid":%q,"timestamp":"2026-01-02T10:%02d:%02d.%03dZ"`,
		g.Cwd, g.SessionID, MessageUUID(i), i/60000%60, i/1000%60, i%1000)
	switch i % 4 {
	case 0:
		return fmt.Sprintf(`{%s,"type":"user","message":{"role":"user","content":"message %d"}}`, h, i)
	case 1:
		return fmt.Sprintf(`{%s,"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"message %d%s"}],"usage":{"input_tokens":100,"output_tokens":20}}}`, h, i, i, g.Pad)
	case 2:
		return fmt.Sprintf(`{%s,"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"echo message %d"}}],"usage":{"input_tokens":100,"output_tokens":20}}}`, h, i, i, i)
	default:
		return fmt.Sprintf(`{%s,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"message %d%s"}]},"toolUseResult":{"stdout":"message %d"}}`, h, i-1, i, g.Pad, i)
	}
}

// Noise returns a line that is not a message, without its newline.
func (g *Gen) Noise() string {
	return fmt.Sprintf(`{"type":"last-prompt","lastPrompt":"message %d","sessionId":%q}`, g.n, g.SessionID)
}

// Write writes messages to path until the file holds at least size bytes or
// count messages, whichever is set (a message is followed by a noise line).
func (g *Gen) Write(path string, size int64, count int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for i := 0; (size > 0 && n < size) || (count > 0 && i < count); i++ {
		k, _ := w.WriteString(g.Message() + "\n" + g.Noise() + "\n")
		n += int64(k)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LoremPad is a pad of about 1 kB.
var LoremPad = strings.Repeat(" lorem ipsum", 85)
