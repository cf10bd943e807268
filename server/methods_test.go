package server

import (
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// Every method the contract declares has a handler, and every handler a
// declared method: a family that forgets one fails here, not on a client.
func TestEveryMethodHasAHandler(t *testing.T) {
	table := (&Server{}).table()
	declared := map[string]bool{}
	for _, m := range rpc.Methods {
		declared[m.Name] = true
		if table[m.Name].handle == nil {
			t.Errorf("%s is in rpc.Methods but no family handles it", m.Name)
		}
	}
	for name := range table {
		if !declared[name] {
			t.Errorf("%s has a handler but is not in rpc.Methods", name)
		}
	}
}
