package server

import (
	"context"
	"encoding/json"

	"github.com/cdevd/cdevd/rpc"
)

// access is what a method does, which decides who may call it: a device
// with the watch scope may call the methods that read, not those that act.
// Every entry of the table must say (table panics otherwise), so that a new
// method cannot be open to watchers by omission.
type access int

const (
	accessUnset access = iota
	// reads: initialize, lists, history, messages, watching, state: the
	// method changes nothing a user could lose, nor runs anything.
	reads
	// acts: starts or steers an agent, answers it, changes the workspace
	// list, deletes, or manages devices.
	acts
)

// method is one entry of the dispatch table.
type method struct {
	handle func(ctx context.Context, c *client, params json.RawMessage) (any, error)
	access access
	// beforeInit: callable before initialize (the lifecycle methods).
	beforeInit bool
	// inline: a lookup under short locks, answered on the connection's
	// reading goroutine (see Inline).
	inline bool
}

// family is one method family's contribution to the table, from the file
// that implements it. A new family adds its function to families.
type family map[string]method

// families lists every method family; TestEveryMethodHasAHandler holds it
// to rpc.Methods, so that a method cannot be declared and silently missed.
func (s *Server) families() []family {
	return []family{s.lifecycleMethods(), s.workspaceMethods(), s.fileMethods(), s.presenceMethods(), s.sessionMethods(),
		s.historyMethods(), s.notifyMethods(), s.deviceMethods(), s.gitMethods(), s.queueMethods(), s.configureMethods(),
		s.usageMethods()}
}

// table merges the families; a method in two of them is a programming error.
func (s *Server) table() map[string]method {
	t := map[string]method{}
	for _, f := range s.families() {
		for name, m := range f {
			if m.access == accessUnset {
				panic("server: method " + name + " does not say whether it reads or acts (wrap it in read or act)")
			}
			if _, dup := t[name]; dup {
				panic("server: method " + name + " is in two families")
			}
			t[name] = m
		}
	}
	return t
}

// plain makes a handler of f, which takes decoded params.
func plain[P, R any](f func(context.Context, P) (R, error)) method {
	return method{handle: func(ctx context.Context, _ *client, raw json.RawMessage) (any, error) {
		var p P
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		return f(ctx, p)
	}}
}

// withClient makes a handler of f, which also needs the calling client.
func withClient[P, R any](f func(context.Context, *client, P) (R, error)) method {
	return method{handle: func(ctx context.Context, c *client, raw json.RawMessage) (any, error) {
		var p P
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		return f(ctx, c, p)
	}}
}

// read marks m as one that only reads: every scope may call it.
func read(m method) method {
	m.access = reads
	return m
}

// act marks m as one that acts: only the control scope may call it.
func act(m method) method {
	m.access = acts
	return m
}

// lookup marks m as answered inline.
func lookup(m method) method {
	m.inline = true
	return m
}

func methodNotFound(method string) error {
	return &rpc.Error{Code: rpc.CodeMethodNotFound, Message: "method not found: " + method,
		Data: map[string]any{"method": method}}
}
