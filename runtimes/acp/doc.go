// Package acp is cdevd's generic runtime for agents that speak the Agent
// Client Protocol (ACP) over stdio: `gemini --acp` (runtimes/gemini builds on
// it) and any agent a user declares in cdevd's configuration.
//
// Each session is one agent process: initialize, then session/new (the agent
// chooses the id) or session/load, then one session/prompt per turn, whose
// reply ends the turn. session/update notifications become events
// (updates.go), session/request_permission requests become prompts whose
// options are the agent's own (permission.go).
//
// The wire types are github.com/coder/acp-go-sdk's, generated from ACP's
// published schema. The connection is runtimes/stdiorpc with OrderedReplies,
// not the SDK's: the SDK handles an agent's requests on goroutines of their
// own, so a permission request could reach clients before the text streamed
// just before it; stdiorpc hands every message to one goroutine in line
// order, bounds lines as every other adapter does, and skips garbage.
//
// Messages: an agent streams chunks without ids. Without a transcript reader
// the session assembles them into messages with ids of its own. A runtime
// with one (Spec.Transcripts) takes complete messages from it instead, so
// that live and stored messages carry the same ids: after each tool call and
// before each turn ends, the session reads what the agent stored and emits
// what is new or changed.
package acp
