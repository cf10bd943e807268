package claude

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// fakeCLIEnv makes the test binary a fake claude that misbehaves on demand,
// for the faults the real CLI cannot be made to show.
const fakeCLIEnv = "CLAUDE_FAKE_CLI"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeCLIEnv); mode != "" {
		os.Exit(fakeCLI(mode))
	}
	goleak.VerifyTestMain(m)
}

// The fake's flood: 4 MiB of deltas, then the message's line of 4 MiB
// (within the line limit): past the emitter's bound and the message limit.
const floodChunks, floodSize = 16, 256 << 10

// fakeCLI answers each stdin line according to mode:
//   - garbage: a non-JSON line, then a normal reply and result;
//   - bigline: one stdout line over the runner's limit;
//   - crash: exit 3 in the middle of the turn;
//   - hang: start the turn and then print nothing;
//   - ask: ask permission for a command and wait;
//   - flood: floodChunks text deltas of floodSize bytes, the whole text
//     again as the assistant message, then the result;
//   - floodforever: text deltas of 1 MiB until killed.
//
// "--version" prints a version, except in mode badversion, which fails.
func fakeCLI(mode string) int {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		if mode == "badversion" {
			fmt.Fprintln(os.Stderr, "error: no license")
			return 2
		}
		fmt.Println("9.9.9 (Claude Code)")
		return 0
	}
	const assistant = `{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"fine"}]},"parent_tool_use_id":null,"uuid":"u-1"}`
	const result = `{"type":"result","subtype":"success","is_error":false,"result":"fine","stop_reason":"end_turn","duration_ms":5,"total_cost_usd":0.25,"usage":{"input_tokens":3,"output_tokens":1}}`
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch mode {
		case "garbage":
			fmt.Fprintln(out, "Warning: something odd happened")
			fmt.Fprintln(out, assistant)
			fmt.Fprintln(out, result)
		case "bigline":
			fmt.Fprintf(out, `{"type":"assistant","pad":"%s"}`+"\n", strings.Repeat("x", 9<<20))
		case "crash":
			fmt.Fprintln(out, `{"type":"system","subtype":"status","status":"requesting"}`)
			out.Flush()
			return 3
		case "hang":
			fmt.Fprintln(out, `{"type":"system","subtype":"status","status":"requesting"}`)
		case "flood":
			chunk := strings.Repeat("x", floodSize)
			fmt.Fprintln(out, `{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"parent_tool_use_id":null}`)
			for range floodChunks {
				fmt.Fprintf(out, `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"%s"}},"parent_tool_use_id":null}`+"\n", chunk)
			}
			fmt.Fprintf(out, `{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"%s"}]},"parent_tool_use_id":null,"uuid":"u-1"}`+"\n",
				strings.Repeat(chunk, floodChunks))
			fmt.Fprintln(out, result)
		case "floodforever":
			chunk := strings.Repeat("x", 1<<20)
			fmt.Fprintln(out, `{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"parent_tool_use_id":null}`)
			for {
				fmt.Fprintf(out, `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"%s"}},"parent_tool_use_id":null}`+"\n", chunk)
			}
		case "ask":
			if strings.Contains(in.Text(), `"type":"user"`) {
				fmt.Fprintln(out, `{"type":"control_request","request_id":"r-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"make"}}}`)
			}
		}
		out.Flush()
	}
	return 0
}
