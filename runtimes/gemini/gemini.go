// Package gemini is the Gemini CLI runtime: `gemini --acp` driven by the
// generic Agent Client Protocol runtime (runtimes/acp), with history read
// from Gemini's own chat files (runtimes/gemini/chats).
//
// What Gemini needs beyond generic ACP:
//   - one process that does the work: GEMINI_CLI_NO_RELAUNCH=true, or the
//     launcher would run the agent as a child it does not pass SIGTERM to
//     (cdevd also signals the whole process group);
//   - -m for a model; session mode "yolo" for bypassPermissions and yolo;
//   - --include-directories for each of StartRequest.ReadDirs: its tools
//     read only inside their workspace, and the iOS app's prompts name
//     files under $CDEVD_HOME/attachments;
//   - a bound on the model's silence: Gemini retries a failing model API
//     for minutes without a word (DefaultModelSilence);
//   - resume with session/load, never within the wall-clock minute in
//     which the session's newest chat file was begun: Gemini would start a
//     recording under the same file name and lose the history
//     (CLI-PROTOCOLS.md 2.7), so the adapter waits for the minute to turn.
package gemini

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/fswatch"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/acp"
	"github.com/cdevd/cdevd/runtimes/gemini/chats"
	"github.com/cdevd/cdevd/runtimes/kit"
	"github.com/cdevd/cdevd/runtimes/stdiorpc"
)

// ID is the runtime id, the agent_type clients send.
const ID = "gemini"

// Config configures the adapter.
type Config struct {
	Bin string   // GEMINI_BIN or "gemini" looked up on PATH
	Env []string // the CLI's whole environment; nil → os.Environ() but CDEVD_TOKEN
	// Home is the Gemini home whose tmp/ holds the chat files; "" →
	// $HOME/.gemini from Env.
	Home         string
	StallTimeout time.Duration
	KillGrace    time.Duration
	// CacheDir keeps the replays of big chat files across restarts
	// ($CDEVD_HOME/cache/gemini); "" keeps them in memory only.
	CacheDir string
	// ModelSilence gives up a turn whose model says nothing for that long
	// while no tool runs (Gemini retries a failing API without a word):
	// 0 → DefaultModelSilence; negative: never.
	ModelSilence time.Duration
	// Watcher follows chat files; nil uses the process's shared one.
	Watcher *fswatch.Watcher
	Logger  *zap.Logger
}

// Adapter runs Gemini sessions. It implements runtimes.Adapter.
type Adapter struct {
	*acp.Adapter
	chats    *chats.Store
	log      *zap.Logger
	cacheDir string // Config.CacheDir (offer.go)
	// now is the clock the load guard reads (tests move it).
	now func() time.Time
}

// DefaultModelSilence is how long a Gemini turn may wait on its model
// without a word before cdevd gives it up. Gemini 0.61.0 retries a 429, a
// 5xx or a refused connection up to general.maxAttempts times (default 10,
// backoff 5 s doubling to 30 s: about four minutes) and says nothing of it
// in ACP mode, nor can cdevd bound those retries (no flag or variable; its
// system settings must be root's). 90 s is longer than a model takes to
// begin an answer (thoughts stream too) and cuts the wait to a third.
const DefaultModelSilence = 90 * time.Second

// version matches the CLI's "0.61.0".
var version = regexp.MustCompile(`\d+\.\d+\.\d+\S*`)

// program is the program this runtime runs, and the variable that names it.
var program = runtimes.CLI{Command: "gemini", BinEnv: "GEMINI_BIN"}

// New returns an adapter with cfg's defaults filled in.
func New(cfg Config) *Adapter {
	if cfg.Env == nil {
		cfg.Env = kit.Env()
	}
	if kit.LookupEnv(cfg.Env, "GEMINI_CLI_NO_RELAUNCH") == "" {
		cfg.Env = append(cfg.Env[:len(cfg.Env):len(cfg.Env)], "GEMINI_CLI_NO_RELAUNCH=true")
	}
	cfg.Bin = kit.Bin(cfg.Bin, cfg.Env, program.BinEnv, program.Command) // a relative path made absolute, here and now
	if cfg.Home == "" {
		cfg.Home = filepath.Join(kit.Home(cfg.Env), ".gemini")
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	switch {
	case cfg.ModelSilence == 0:
		cfg.ModelSilence = DefaultModelSilence
	case cfg.ModelSilence < 0:
		cfg.ModelSilence = 0 // acp: none
	}
	log := cfg.Logger.With(zap.String("runtime", ID))
	login := kit.NewLogin(loginFix)
	g := &Adapter{chats: chats.New(cfg.Home, log).WithWatcher(cfg.Watcher).WithCacheDir(cfg.CacheDir), log: log, now: time.Now, cacheDir: cfg.CacheDir}
	g.Adapter = acp.New(acp.Spec{
		ID:            ID,
		DisplayName:   "Gemini CLI",
		Maturity:      runtimes.Complete,
		Command:       cfg.Bin,
		Args:          []string{"--acp"},
		Env:           cfg.Env,
		CommandSource: program.BinEnv,
		CLI:           program,
		ModelArgs:     func(m string) []string { return []string{"-m", m} },
		// Gemini's tools read only inside its workspace; this widens it
		// (live_readdirs_test.go proves it in ACP mode).
		ReadDirArgs: func(d string) []string { return []string{"--include-directories", d} },
		Modes: map[rpc.PermissionMode]string{
			rpc.PermissionDefault: "",     // Gemini's default asks before write and exec tools
			rpc.PermissionBypass:  "yolo", // and yolo runs them
		},
		Transcripts: g.chats,
		Resume:      true,
		Configure:   true,
		// gemini --acp says promptCapabilities.image; images go as image
		// blocks, files named in the text (live_attachments_test.go).
		Attachments: []rpc.AttachmentKind{rpc.AttachImage, rpc.AttachFile},
		// Gemini answers a load of a session it does not keep with -32603
		// and this detail (CLI-PROTOCOLS.md 2.7).
		UnknownSession: func(e *stdiorpc.Error) bool { return strings.Contains(string(e.Data), "No previous sessions") },
		BeforeLoad:     g.awaitNewMinute,
		Detect: func(ctx context.Context) runtimes.Availability {
			av := kit.DetectVersion(ctx, ID, cfg.Bin, program.BinEnv, cfg.Env, version)
			return kit.DetectLogin(ctx, av, func(context.Context, string) kit.LoginCheck {
				return checkLogin(cfg.Env, cfg.Home)
			}, login)
		},
		Login:        login,
		ModelSilence: cfg.ModelSilence,
		StallTimeout: cfg.StallTimeout,
		KillGrace:    cfg.KillGrace,
		Logger:       cfg.Logger,
	})
	return g
}

// awaitNewMinute returns once the wall-clock minute (UTC) differs from
// that of every chat file of the session: a load now cannot reuse one's
// name. It waits at most a minute, or until ctx ends.
func (g *Adapter) awaitNewMinute(ctx context.Context, dir, id string) error {
	for {
		stamps, err := g.chats.Stamps(ctx, dir, id)
		if errors.Is(err, runtimes.ErrNoSession) {
			return nil // Gemini's own load will say so
		}
		if err != nil {
			return err
		}
		now := g.now().UTC().Truncate(time.Minute)
		busy := false
		for _, st := range stamps {
			if st.Equal(now) {
				busy = true
			}
		}
		if !busy {
			return nil
		}
		wait := now.Add(time.Minute).Sub(g.now().UTC()) + 100*time.Millisecond
		g.log.Info("waiting for the minute to turn before loading: Gemini would write over a session's history loaded in the minute its file was begun",
			zap.String("session", id), zap.Duration("wait", wait))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}
