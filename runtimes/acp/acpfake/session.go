package acpfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/uuid"
)

// session is one ACP session of this process. Its fields are guarded by
// agent.mu.
type session struct {
	id, cwd string
	mode    string
	always  map[string]bool // tool kinds allowed for the rest of the session
	turns   []turn          // completed turns, as stored
	running *prompt         // the latest prompt, until it has replied
}

func newSession(id, cwd string, turns []turn) *session {
	return &session{id: id, cwd: cwd, mode: modeDefault, always: map[string]bool{}, turns: turns}
}

// turn is one completed prompt and the agent's answer to it.
type turn struct {
	Prompt string `json:"prompt"`
	Answer string `json:"answer"`
}

// stored is a session's file in StateDir.
type stored struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Turns     []turn `json:"turns"`
}

// prompt is one session/prompt request.
type prompt struct {
	id     json.RawMessage
	ctx    context.Context // cancelled by session/cancel or by the next prompt
	cancel context.CancelFunc
	done   chan struct{} // closed once the prompt has replied
}

// cancel handles session/cancel: a running prompt ends "cancelled" at once;
// one with an open permission request stays pending until the client
// answers it (Gemini's behaviour, CLI-PROTOCOLS.md pitfall 6), because ask
// does not watch the prompt's context.
func (a *agent) cancel(params json.RawMessage) {
	var p cancelParams
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		fmt.Fprintf(a.stderr, "acpfake: session/cancel with bad params %s\n", params)
		return
	}
	a.mu.Lock()
	var pr *prompt
	if s := a.sessions[p.SessionID]; s != nil {
		pr = s.running
	}
	a.mu.Unlock()
	if pr != nil {
		pr.cancel()
	}
}

// sessionFile is where session id is stored. id must be a uuid: it names a
// file, and the fake only ever hands out uuids.
func (a *agent) sessionFile(id string) (string, error) {
	if _, err := uuid.Parse(id); err != nil {
		return "", fmt.Errorf("sessionId %q is not a uuid", id)
	}
	return filepath.Join(a.opts.StateDir, id+".json"), nil
}

// store writes the session's turns so that another process can load it.
func (a *agent) store(st stored) error {
	path, err := a.sessionFile(st.SessionID)
	if err != nil {
		return err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return writeAtomic(path, b)
}

// writeAtomic replaces path by a rename, so that a process loading the
// session reads the old turns or the new ones, never half a file. (No
// fsync: the fake's files need not survive a machine crash.)
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // fails harmlessly after the rename
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// noSessions is Gemini's answer to a session/load it cannot do (unknown
// id, another project, or a session that never had a prompt).
func noSessions() *rpcError {
	return &rpcError{Code: codeInternalError, Message: "Internal error",
		Data: map[string]string{"details": "No previous sessions found for this project."}}
}

// loadSession replays the stored turns as session/update chunks, then
// replies with the modes; the session is live in this process from then on.
func (a *agent) loadSession(id, params json.RawMessage) {
	var p loadSessionParams
	if err := decode(params, &p); err != nil {
		a.out.fail(id, err)
		return
	}
	if !filepath.IsAbs(p.Cwd) {
		a.out.fail(id, invalidParams(fmt.Sprintf("Invalid params: cwd %q is not an absolute path", p.Cwd)))
		return
	}
	path, err := a.sessionFile(p.SessionID)
	if err != nil {
		a.out.fail(id, invalidParams("Invalid params: "+err.Error()))
		return
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		a.out.fail(id, noSessions())
		return
	}
	var st stored
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		a.out.fail(id, &rpcError{Code: codeInternalError, Message: "Internal error",
			Data: map[string]string{"details": "read " + path + ": " + err.Error()}})
		return
	}
	if st.Cwd != p.Cwd {
		a.out.fail(id, noSessions()) // Gemini keys sessions by project (the cwd)
		return
	}

	s := newSession(p.SessionID, p.Cwd, st.Turns)
	a.mu.Lock()
	if old := a.sessions[s.id]; old != nil && old.running != nil {
		old.running.cancel() // the loaded copy replaces it
	}
	a.sessions[s.id] = s
	a.mu.Unlock()
	for _, t := range st.Turns {
		a.out.update(s.id, chunk{SessionUpdate: "user_message_chunk", Content: text(t.Prompt)})
		if t.Answer != "" {
			a.out.update(s.id, chunk{SessionUpdate: "agent_message_chunk", Content: text(t.Answer)})
		}
	}
	a.out.reply(id, sessionResult{Modes: sessionModes{AvailableModes: modes, CurrentModeID: modeDefault}})
}
