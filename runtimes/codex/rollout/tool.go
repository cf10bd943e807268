package rollout

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/cdevd/cdevd/internal/jsonstr"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes/history"
)

// TimeFormat is RFC 3339 with milliseconds, as Codex writes timestamps.
const TimeFormat = history.TimeFormat

// Tool names of the tool_use blocks of command executions and file changes:
// Codex's items do not name the model's tool, so these name what was done
// ("Bash" is what clients already render as a command).
const (
	CommandTool = "Bash"
	PatchTool   = "apply_patch"
)

// NewMessage is the normalized message with id: the one constructor of live
// and stored messages, so that both have the same shape.
func NewMessage(threadID, id string, typ rpc.MessageType, ts string, content []rpc.ContentBlock) rpc.Message {
	body := rpc.MessageBody{Role: string(typ), Content: content}
	if typ == rpc.MessageAssistant {
		body.ID = id
	}
	return rpc.Message{ID: id, SessionID: threadID, Type: typ, UUID: id, Timestamp: ts, Message: body}
}

// ChangeEntry is one file of a file change, live or in a rollout.
type ChangeEntry struct {
	Path string     `json:"path"`
	Kind ChangeKind `json:"kind"`
	Diff string     `json:"diff"`
}

// ChangeKind is what a file change does to its file.
type ChangeKind struct {
	Type     string `json:"type"` // add, delete, update
	MovePath string `json:"move_path,omitempty"`
}

// ToolItem is a completed command execution (Argv set) or file change, from
// app-server's item/completed or the rollout's event_msg/item_completed.
type ToolItem struct {
	ID       string
	Argv     []string
	Changes  []ChangeEntry
	Status   string // completed, failed, declined
	Output   string
	ExitCode *int
}

// ToolMessage is the assistant message of a completed tool item: a
// tool_use block and its tool_result under the item's id (the model's call
// id), as Codex keeps both halves in one item.
func ToolMessage(threadID, ts string, it ToolItem) rpc.Message {
	failed := it.Status != "completed" || (it.ExitCode != nil && *it.ExitCode != 0)
	var use, result rpc.ContentBlock
	if it.Argv != nil {
		input, _ := json.Marshal(map[string]string{"command": CommandText(it.Argv)})
		use = rpc.ContentBlock{Type: rpc.BlockToolUse, ID: it.ID, Name: CommandTool, Input: input}
		out := it.Output
		if out == "" && it.Status == "declined" {
			out = "declined by the user"
		}
		// No exit code for a command that never ran (declined) or that Codex stopped.
		result = rpc.ContentBlock{Type: rpc.BlockToolResult, ToolUseID: it.ID, Content: jsonstr.Append(nil, out),
			IsError: failed, ExitCode: it.ExitCode}
	} else {
		changes := it.Changes
		if changes == nil {
			changes = []ChangeEntry{}
		}
		input, _ := json.Marshal(map[string]any{"changes": changes})
		use = rpc.ContentBlock{Type: rpc.BlockToolUse, ID: it.ID, Name: PatchTool, Input: input}
		result = rpc.ContentBlock{Type: rpc.BlockToolResult, ToolUseID: it.ID, Content: jsonstr.Append(nil, it.Status), IsError: failed}
	}
	return NewMessage(threadID, it.ID, rpc.MessageAssistant, ts, []rpc.ContentBlock{use, result})
}

// CommandText is what a person would type for argv: the script of a
// `bash -lc SCRIPT` (how Codex runs every command), else the words joined.
func CommandText(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		switch path.Base(argv[0]) {
		case "bash", "sh", "zsh", "dash":
			return argv[2]
		}
	}
	return strings.Join(argv, " ")
}
