package contracttests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// The wire corpus (testdata/wire) is what the suite validated, for client
// teams: every file must still be valid under today's document, and every
// method (a request and its result) and every event type must have one.
// `go test ./contracttests -update` rewrites it from a whole run.
func TestWireCorpus(t *testing.T) {
	if *updateWire {
		t.Skip("this run rewrites the corpus")
	}
	ct, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	err = filepath.WalkDir(WireDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(WireDir, p)
		have[rel] = true
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var f struct {
			JSONRPC string          `json:"jsonrpc"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
			Result  json.RawMessage `json:"result"`
			Error   *rpc.Error      `json:"error"`
		}
		if err := json.Unmarshal(b, &f); err != nil || f.JSONRPC != "2.0" {
			t.Errorf("%s: not a JSON-RPC 2.0 frame: %v", rel, err)
			return nil
		}
		kind, name, _ := strings.Cut(rel, string(filepath.Separator))
		method := methodOf(name)
		switch kind {
		case "request":
			if f.Method != method {
				t.Errorf("%s: method %q", rel, f.Method)
			}
			if len(f.Params) > 0 && string(f.Params) != "null" {
				if err := ct.v.ValidateParams(method, f.Params); err != nil {
					t.Errorf("%s: %v", rel, err)
				}
			}
		case "result":
			if err := ct.v.ValidateResult(method, f.Result); err != nil {
				t.Errorf("%s: %v", rel, err)
			}
		case "error":
			m, _, _ := strings.Cut(name, ".")
			if f.Error == nil {
				t.Errorf("%s: no error", rel)
			} else if err := ct.checkError(methodOf(m+".json"), f.Error); err != nil {
				t.Errorf("%s: %v", rel, err)
			}
		case "notification":
			if err := ct.checkNotification(f.Method, f.Params); err != nil || f.Method != method {
				t.Errorf("%s: %s: %v", rel, f.Method, err)
			}
		default:
			t.Errorf("%s: unknown kind %q", rel, kind)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read the wire corpus: %v (run go test ./contracttests -update)", err)
	}
	var missing []string
	for _, m := range rpc.Methods {
		if m.Name == rpc.MethodInitialized {
			continue // a notification: it has no reply
		}
		for _, kind := range []string{"request", "result"} {
			if f := WireFile(kind, m.Name, 0); !have[f] {
				missing = append(missing, f)
			}
		}
	}
	for _, e := range rpc.Events {
		if f := WireFile("notification", rpc.EventPrefix+e.Type, 0); !have[f] {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the wire corpus lacks %v: run go test ./contracttests -update", missing)
	}
}

// methodOf is the method a corpus file name stands for.
func methodOf(name string) string {
	name = strings.TrimSuffix(name, ".json")
	for _, m := range rpc.Methods {
		if WireFile("request", m.Name, 0) == filepath.Join("request", name+".json") {
			return m.Name
		}
	}
	for _, e := range rpc.Events {
		if WireFile("notification", rpc.EventPrefix+e.Type, 0) == filepath.Join("notification", name+".json") {
			return rpc.EventPrefix + e.Type
		}
	}
	return name
}
