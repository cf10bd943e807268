package server

import (
	"slices"
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

// capabilities.features follows the method table: a feature is reported
// when, and only when, every one of its methods is answered.
func TestFeaturesFollowTheTable(t *testing.T) {
	s := &Server{}
	s.methods = s.table()
	var all []string
	for _, f := range rpc.Features {
		all = append(all, f.Name)
	}
	if got := s.features(); !slices.Equal(got, all) {
		t.Errorf("features %v, want every one of %v", got, all)
	}
	delete(s.methods, rpc.MethodFileGet)
	if got := s.features(); slices.Contains(got, rpc.FeatureFiles) || !slices.Contains(got, rpc.FeatureSearch) {
		t.Errorf("without %s: features %v", rpc.MethodFileGet, got)
	}
}

// A method that acts is refused to watch devices with -32003, and the
// contract says so for exactly those methods.
func TestActingMethodsDeclareForbidden(t *testing.T) {
	table := (&Server{}).table()
	for _, m := range rpc.Methods {
		if got, want := slices.Contains(m.Errors, rpc.CodeForbidden), table[m.Name].access == acts; got != want {
			t.Errorf("%s: rpc.Methods lists -32003: %v; the dispatch table says it acts: %v", m.Name, got, want)
		}
	}
}
