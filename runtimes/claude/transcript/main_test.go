package transcript

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// gen writes synthetic transcripts shaped like the CLI's: every message line
// is followed by lines that are not messages, as in real files.
type gen struct {
	sid    string
	branch string
	n      int    // messages written so far
	pad    string // extra text per assistant message, to reach a file size
}

func newGen(sid string) *gen { return &gen{sid: sid, branch: "main"} }

// msgUUID is the uuid of the i-th generated message.
func msgUUID(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }

// message returns the next message line: prompts and answers alternate, and
// every third answer is a tool call followed by its result.
func (g *gen) message() string {
	i := g.n
	g.n++
	h := fmt.Sprintf(`"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":%q,"version":"2.1.197","gitBranch":%q,"uuid":%q,"timestamp":"2026-01-02T10:%02d:%02d.000Z"`,
		g.sid, g.branch, msgUUID(i), i/60%60, i%60)
	switch i % 4 {
	case 0:
		return fmt.Sprintf(`{%s,"type":"user","message":{"role":"user","content":"message %d"}}`, h, i)
	case 1:
		return fmt.Sprintf(`{%s,"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"message %d%s"}],"stop_reason":"tool_use","usage":{"input_tokens":100,"output_tokens":20}}}`, h, i, i, g.pad)
	case 2:
		return fmt.Sprintf(`{%s,"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"echo message %d"}}],"usage":{"input_tokens":100,"output_tokens":20}}}`, h, i, i, i)
	default:
		return fmt.Sprintf(`{%s,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"message %d%s"}]},"toolUseResult":{"stdout":"message %d"}}`, h, i-1, i, g.pad, i)
	}
}

// noise returns a line that is not a message.
func (g *gen) noise() string {
	switch g.n % 3 {
	case 0:
		return fmt.Sprintf(`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-02T10:00:00.000Z","sessionId":%q}`, g.sid)
	case 1:
		return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"attachment","attachment":{"type":"todo_reminder","content":[]},"sessionId":%q,"gitBranch":%q,"uuid":"c-%d"}`, g.sid, g.branch, g.n)
	default:
		return fmt.Sprintf(`{"type":"last-prompt","lastPrompt":"message %d","sessionId":%q}`, g.n, g.sid)
	}
}

// lines returns n messages, each followed by a noise line, newline-terminated.
func (g *gen) lines(n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(g.message() + "\n")
		b.WriteString(g.noise() + "\n")
	}
	return b.String()
}

func appendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// waitTimeout bounds every wait for the watcher; generous for a loaded CI.
const waitTimeout = 10 * time.Second
