package rpc_test

import (
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

func TestIsMethod(t *testing.T) {
	for _, m := range rpc.Methods {
		if !rpc.IsMethod(m.Name) {
			t.Errorf("IsMethod(%q) = false", m.Name)
		}
	}
	for _, name := range []string{"", "session/nope", "Session/Start", rpc.EventPrefix + rpc.Events[0].Type} {
		if rpc.IsMethod(name) {
			t.Errorf("IsMethod(%q) = true", name)
		}
	}
}
