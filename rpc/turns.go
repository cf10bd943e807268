package rpc

import "fmt"

// Per-turn diffs and undo: what an agent's turn changed in the workspace,
// and taking it back (session/turns, session/turn_diff, session/revert,
// event/turn_diff).

const (
	MethodSessionTurns    = "session/turns"
	MethodSessionTurnDiff = "session/turn_diff"
	MethodSessionRevert   = "session/revert"

	EventTurnDiff = "turn_diff"
)

// TurnFile is one file a turn changed.
type TurnFile struct {
	Path      string `json:"path" doc:"Relative to the repository's top level, with forward slashes."`
	Status    string `json:"status" enum:"added,modified,deleted"`
	Additions int    `json:"additions" doc:"Lines added; 0 for a binary file."`
	Deletions int    `json:"deletions" doc:"Lines removed; 0 for a binary file."`
	Binary    bool   `json:"binary,omitempty"`
}

// TurnDiff is what one turn changed: its files and git's unified diff.
type TurnDiff struct {
	Turn        int        `json:"turn" minimum:"1" doc:"The turn's number in its session, from 1; a revert is numbered as a turn too."`
	Reverts     int        `json:"reverts,omitempty" doc:"For a revert: the turn it undid."`
	Files       []TurnFile `json:"files"`
	Diff        string     `json:"diff" doc:"Unified diff, capped at a line's end."`
	IsTruncated bool       `json:"is_truncated"`
}

// TurnDiffEvent follows a turn that changed files in the workspace (and
// a revert, which is a change too).
type TurnDiffEvent struct {
	EventHeader
	TurnDiff
}

// TurnRefParams names one turn of a session.
type TurnRefParams struct {
	SessionID string `json:"session_id"`
	Turn      int    `json:"turn" minimum:"1"`
}

// TurnDiffResult answers session/turn_diff.
type TurnDiffResult struct {
	SessionID string `json:"session_id"`
	TurnDiff
}

// TurnsParams names a session.
type TurnsParams struct {
	SessionID string `json:"session_id"`
}

// TurnSummary is one turn that changed files, without its diff.
type TurnSummary struct {
	Turn    int        `json:"turn" minimum:"1"`
	Reverts int        `json:"reverts,omitempty"`
	Files   []TurnFile `json:"files"`
}

// TurnsResult lists a session's turns that changed files, oldest first.
type TurnsResult struct {
	SessionID string        `json:"session_id"`
	Turns     []TurnSummary `json:"turns"`
}

// RevertParams asks to undo one turn.
type RevertParams struct {
	SessionID string `json:"session_id"`
	Turn      int    `json:"turn" minimum:"1"`
	DryRun    bool   `json:"dry_run,omitempty" doc:"Say what would be restored and what conflicts; change nothing."`
	Force     bool   `json:"force,omitempty" doc:"Restore files changed since the turn too."`
}

// RevertResult says what a revert restored (or would).
type RevertResult struct {
	Success   bool     `json:"success"`
	SessionID string   `json:"session_id"`
	Files     []string `json:"files" doc:"The files restored, or to be restored."`
	Conflicts []string `json:"conflicts" doc:"Files changed since the turn (restored only with force)."`
	DryRun    bool     `json:"dry_run"`
	Turn      int      `json:"turn,omitempty" doc:"The revert's own number, by which it can be reverted in turn; absent for a dry run or when nothing changed."`
}

// RevertConflict refuses a revert over files changed since the turn.
func RevertConflict(sessionID string, turn int, files []string) *Error {
	return &Error{Code: CodeRevertConflict,
		Message: "files changed since the turn; revert with force to overwrite them",
		Data:    map[string]any{"session_id": sessionID, "turn": turn, "files": files}}
}

// TurnNotFound reports a turn with no record (none yet, or in a workspace
// that is not a git repository, where turns are not recorded).
func TurnNotFound(sessionID string, turn int) *Error {
	return InvalidParams("turn", fmt.Sprintf("session %s has no turn %d recorded (turns are recorded only in a git repository)", sessionID, turn))
}
