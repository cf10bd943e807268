package codex

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakeCLIEnv makes the test binary a fake `codex app-server` that misbehaves
// on demand, for the faults the real CLI cannot be made to show.
const fakeCLIEnv = "CODEX_FAKE_CLI"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeCLIEnv); mode != "" {
		os.Exit(fakeCLI(mode))
	}
	goleak.VerifyTestMain(m)
}

// The fake's flood: 2 MiB of deltas, then one item/completed line of 2 MiB
// (within the line limit): past the message limit. (The queue bounds are
// stdiorpc's and kit's, tested there; decoding more costs seconds under
// -race.)
const floodChunks, floodSize = 8, 256 << 10

// fakeThread is the thread id the fake app-server hands out.
const fakeThread = "01a20000-0000-7000-8000-00000000fa4e"

// fakeCLI speaks just enough app-server (no "jsonrpc", like Codex) to start
// a thread; each turn/start then goes by mode:
//   - garbage: a line that is no JSON, then a normal answer and turn end;
//   - bigline: one line over the runner's limit;
//   - crash: exit 3 in the middle of the turn;
//   - hang: start the turn and then print nothing;
//   - flood: floodChunks deltas of floodSize bytes, the whole text again
//     in item/completed, then the turn's end;
//   - floodforever: deltas of 1 MiB until killed, deaf to turn/interrupt;
//   - lateend: see lateEndCLI.
//
// "--version" prints a version, except in mode badversion, which fails.
func fakeCLI(mode string) int {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		if mode == "badversion" {
			fmt.Fprintln(os.Stderr, "error: no license")
			return 2
		}
		fmt.Println("codex-cli 9.9.9")
		return 0
	}
	out := bufio.NewWriter(os.Stdout)
	var outMu sync.Mutex // lateend answers from a timer too
	send := func(s string, args ...any) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Fprintf(out, s+"\n", args...)
		_ = out.Flush()
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			return 4
		}
		switch m.Method {
		case "initialize":
			send(`{"id":%s,"result":{"userAgent":"fake","codexHome":"/nonexistent/.codex"}}`, m.ID)
		case "thread/start":
			send(`{"id":%s,"result":{"thread":{"id":%q},"model":"m"}}`, m.ID, fakeThread)
		case "turn/start":
			if mode == "lateend" {
				lateEnd.start(m.ID, send)
				continue
			}
			send(`{"id":%s,"result":{"turn":{"id":"turn-1","status":"inProgress"}}}`, m.ID)
			send(`{"method":"turn/started","params":{"threadId":%q,"turn":{"id":"turn-1"}}}`, fakeThread)
			switch mode {
			case "garbage":
				send("Warning: something odd happened")
				send(`{"method":"item/completed","params":{"threadId":%q,"turnId":"turn-1","item":{"type":"agentMessage","id":"msg_1","text":"fine"}}}`, fakeThread)
				send(`{"method":"thread/tokenUsage/updated","params":{"threadId":%q,"turnId":"turn-1","tokenUsage":{"last":{"inputTokens":3,"outputTokens":1}}}}`, fakeThread)
				send(`{"method":"turn/completed","params":{"threadId":%q,"turn":{"id":"turn-1","status":"completed","durationMs":5}}}`, fakeThread)
			case "bigline":
				send(`{"method":"item/agentMessage/delta","params":{"delta":"%s"}}`, strings.Repeat("x", 9<<20))
			case "crash":
				return 3
			case "hang":
			case "flood":
				chunk := strings.Repeat("x", floodSize)
				for range floodChunks {
					send(`{"method":"item/agentMessage/delta","params":{"threadId":%q,"turnId":"turn-1","itemId":"msg_1","delta":"%s"}}`, fakeThread, chunk)
				}
				send(`{"method":"item/completed","params":{"threadId":%q,"turnId":"turn-1","item":{"type":"agentMessage","id":"msg_1","text":"%s"}}}`,
					fakeThread, strings.Repeat(chunk, floodChunks))
				send(`{"method":"turn/completed","params":{"threadId":%q,"turn":{"id":"turn-1","status":"completed","durationMs":5}}}`, fakeThread)
			case "floodforever":
				chunk := strings.Repeat("x", 1<<20)
				for {
					send(`{"method":"item/agentMessage/delta","params":{"threadId":%q,"turnId":"turn-1","itemId":"msg_1","delta":"%s"}}`, fakeThread, chunk)
				}
			}
		}
	}
	return 0
}

// lateEndCLI is the fake's lateend mode, Codex's way with a failed turn
// (0.169.0): the final error notification first, the turn's turn/completed
// a moment later; a turn/start in between is merged into the running turn
// (its id answered, no turn of its own). The first turn fails so; the next
// completes with an answer.
type lateEndCLI struct {
	mu      sync.Mutex
	n       int    // turns started
	running string // the turn Codex still runs, "" when none
}

var lateEnd lateEndCLI

// lateEndDelay is how long the fake's failed turn runs after its error.
const lateEndDelay = 300 * time.Millisecond

func (c *lateEndCLI) start(id json.RawMessage, send func(string, ...any)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running != "" {
		send(`{"id":%s,"result":{"turn":{"id":%q,"status":"inProgress"}}}`, id, c.running) // merged
		return
	}
	c.n++
	turn := fmt.Sprintf("turn-%d", c.n)
	send(`{"id":%s,"result":{"turn":{"id":%q,"status":"inProgress"}}}`, id, turn)
	send(`{"method":"turn/started","params":{"threadId":%q,"turn":{"id":%q}}}`, fakeThread, turn)
	if c.n > 1 {
		send(`{"method":"item/completed","params":{"threadId":%q,"turnId":%q,"item":{"type":"agentMessage","id":"msg_2","text":"fine"}}}`, fakeThread, turn)
		send(`{"method":"turn/completed","params":{"threadId":%q,"turn":{"id":%q,"status":"completed","durationMs":5}}}`, fakeThread, turn)
		return
	}
	const failure = `{"message":"fake says 500","codexErrorInfo":"internalServerError"}`
	send(`{"method":"error","params":{"threadId":%q,"turnId":%q,"willRetry":false,"error":%s}}`, fakeThread, turn, failure)
	c.running = turn
	time.AfterFunc(lateEndDelay, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.running = ""
		send(`{"method":"turn/completed","params":{"threadId":%q,"turn":{"id":%q,"status":"failed","error":%s}}}`, fakeThread, turn, failure)
	})
}
