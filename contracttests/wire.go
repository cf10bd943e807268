package contracttests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cdevd/cdevd/rpc"
)

// WireDir is where the wire corpus lives: one file per kind of frame the
// suite validated (a request and a result per method, each error code per
// method, each event type), for client teams to decode in their own CI.
const WireDir = "testdata/wire"

// wire collects the first frame of each kind validated during a run; a run
// with -update writes them to WireDir.
var wire = struct {
	mu     sync.Mutex
	frames map[string]json.RawMessage // by file name
}{frames: map[string]json.RawMessage{}}

// WireFile names the corpus file of a frame: kind is request, result,
// error or notification; code is the error code (errors only).
func WireFile(kind, method string, code int64) string {
	name := strings.NewReplacer("/", "_", ".", "_").Replace(method)
	if kind == "error" {
		name += "." + strconv.FormatInt(code, 10)
	}
	return filepath.Join(kind, name+".json")
}

// recordWire keeps the message as the first example of its kind. The frame
// is rebuilt as it was on the wire (jsonrpc, id, method, params, result,
// error), indented for reading.
func recordWire(kind, method string, code int64, msg map[string]any) {
	if kind != "notification" && !slices.ContainsFunc(rpc.Methods, func(m rpc.MethodSpec) bool { return m.Name == method }) {
		return // a test of a method that does not exist: no example for clients
	}
	file := WireFile(kind, method, code)
	wire.mu.Lock()
	defer wire.mu.Unlock()
	if _, ok := wire.frames[file]; ok {
		return
	}
	msg["jsonrpc"] = "2.0"
	b, err := json.MarshalIndent(msg, "", "  ")
	if err != nil {
		return
	}
	wire.frames[file] = append(b, '\n')
}

// writeWire replaces the corpus with the frames of this run.
func writeWire() error {
	wire.mu.Lock()
	defer wire.mu.Unlock()
	if len(wire.frames) == 0 {
		return fmt.Errorf("no frame was validated: nothing to write")
	}
	if err := os.RemoveAll(WireDir); err != nil {
		return err
	}
	names := make([]string, 0, len(wire.frames))
	for n := range wire.frames {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(WireDir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, wire.frames[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}
