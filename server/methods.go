package server

import (
	"context"
	"encoding/json"

	"github.com/cdevd/cdevd/rpc"
)

// method is one entry of the dispatch table.
type method struct {
	handle func(ctx context.Context, c *client, params json.RawMessage) (any, error)
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
	return []family{s.lifecycleMethods(), s.workspaceMethods(), s.sessionMethods(), s.historyMethods(), s.gitMethods()}
}

// table merges the families; a method in two of them is a programming error.
func (s *Server) table() map[string]method {
	t := map[string]method{}
	for _, f := range s.families() {
		for name, m := range f {
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

// lookup marks m as answered inline.
func lookup(m method) method {
	m.inline = true
	return m
}

func methodNotFound(method string) error {
	return &rpc.Error{Code: rpc.CodeMethodNotFound, Message: "method not found: " + method,
		Data: map[string]any{"method": method}}
}
