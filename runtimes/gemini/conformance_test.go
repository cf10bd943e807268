package gemini

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/adaptertest"
	"github.com/cdevd/cdevd/runtimes/gemini/geminitest"
	"github.com/cdevd/cdevd/testdoubles/fakegemini"
)

// TestConformance runs the adapter conformance suite on the real CLI. Its
// resume check waits for the minute of the session's chat file to pass.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Harness{
		New: func(t *testing.T) adaptertest.Env {
			api := fakegemini.New(t)
			api.Respond(reply)
			mark := "CDEVD_CONFORMANCE_MARK=" + t.Name() + time.Now().Format("150405.000000")
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			env := append(geminitest.Env(t, api.URL()), mark)
			// The user trusts the workspace in Gemini, without which Gemini
			// refuses yolo (bypassPermissions).
			trust, _ := json.Marshal(map[string]string{dir: "TRUST_FOLDER"})
			if err := os.WriteFile(filepath.Join(geminitest.Home(env), ".gemini", "trustedFolders.json"), trust, 0o600); err != nil {
				t.Fatal(err)
			}
			a := New(Config{Bin: geminitest.Bin(t), Env: env, KillGrace: 5 * time.Second, Logger: zaptest.NewLogger(t)})
			t.Cleanup(func() { a.Transcripts().(io.Closer).Close() }) // its history's folder watches
			return adaptertest.Env{Adapter: a, Dir: dir, Mark: mark}
		},
		Missing: func(t *testing.T) runtimes.Adapter {
			return New(Config{Bin: filepath.Join(t.TempDir(), "missing"), Env: []string{}})
		},
		Text:       "hello",
		Slow:       "SLOW",
		Permission: "RUN touch conformance.txt",
		Timeout:    geminitest.Timeout,
	})
}
