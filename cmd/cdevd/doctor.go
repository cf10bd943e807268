package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/config"
	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/registry"
	"github.com/cdevd/cdevd/rpc"
)

// doctorReport is what `cdevd doctor` knows. The table and --json are both
// printed from it, so that they cannot disagree.
type doctorReport struct {
	Runtimes []doctorRuntime `json:"runtimes"`
	// StateDir is $CDEVD_HOME (or its default); Config is the
	// configuration file read, which need not exist.
	StateDir string `json:"state_dir"`
	Config   string `json:"config"`
	// Notify are the notification sinks config.toml declares, with how
	// each last fared (from the serving cdevd's notify-status.json).
	Notify []doctorSink `json:"notify"`
	// Error is what stopped the diagnosis (a mistake in the configuration
	// file, say): --json prints the report with it rather than no JSON.
	Error string `json:"error,omitempty"`
}

type doctorRuntime struct {
	ID      string `json:"id"`
	Found   bool   `json:"found"`
	Path    string `json:"path"`
	Version string `json:"version"`
	Status  string `json:"status"`
	// Login is whether the CLI can answer: loggedIn, loggedOut or unknown
	// (as the registry's availability.login); "" when not checked.
	Login string `json:"login"`
	// Reason says why the runtime cannot be used, and how to fix it; empty
	// when it can.
	Reason string `json:"reason"`
}

type doctorSink struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Kinds       []string `json:"kinds"`
	LastSuccess string   `json:"last_success,omitempty"`
	LastFailure string   `json:"last_failure,omitempty"`
	LastError   string   `json:"last_error,omitempty"`
}

// notifySinks lists the declared sinks beside their last success and
// failure: a channel failing for weeks shows here, not only in a log.
func notifySinks(h string, cfg config.Config) []doctorSink {
	status, _ := notify.ReadStatus(h) // unreadable: shown as never sent
	byName := map[string]notify.SinkStatus{}
	for _, st := range status {
		byName[st.Name] = st
	}
	out := []doctorSink{}
	for _, s := range notify.FromConfig(cfg.Notify) {
		d := doctorSink{Name: s.Name(), Type: s.Type()}
		for _, k := range notify.Kinds {
			if s.Wants(k) {
				d.Kinds = append(d.Kinds, string(k))
			}
		}
		if st, ok := byName[s.Name()]; ok {
			if !st.LastSuccess.IsZero() {
				d.LastSuccess = rpc.FormatTime(st.LastSuccess)
			}
			if !st.LastFailure.IsZero() {
				d.LastFailure, d.LastError = rpc.FormatTime(st.LastFailure), st.LastError
			}
		}
		out = append(out, d)
	}
	return out
}

func doctor(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rep, err := diagnose()
	if err != nil {
		rep.Error = err.Error()
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if werr := enc.Encode(rep); werr != nil {
			return werr
		}
	} else if err == nil {
		if werr := rep.writeTable(stdout); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	return rep.unusable()
}

// unusable is an error naming each runtime that cannot be used, and why;
// nil when every one can. A login that is unknown is not a failure.
func (rep doctorReport) unusable() error {
	var bad []string
	for _, r := range rep.Runtimes {
		if r.Status == string(rpc.RuntimeDisabled) {
			bad = append(bad, fmt.Sprintf("%s: %s", r.ID, r.Reason))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%d runtime(s) cannot be used:\n  %s", len(bad), strings.Join(bad, "\n  "))
}

func diagnose() (doctorReport, error) {
	rep := doctorReport{Runtimes: []doctorRuntime{}}
	h, err := home()
	if err != nil {
		return rep, err
	}
	rep.StateDir = h
	cfg, err := config.Load(h, builtins...)
	if err != nil {
		rep.Config = cfg.Path
		return rep, err
	}
	reg, err := registry.New(adapters(zap.NewNop(), 0, cfg, h)...)
	if err != nil {
		return doctorReport{}, err
	}
	defer reg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep.Config = cfg.Path
	rep.Notify = notifySinks(h, cfg)
	for _, id := range reg.IDs() {
		st := reg.Status(ctx, id)
		a := st.Availability
		rep.Runtimes = append(rep.Runtimes, doctorRuntime{ID: id, Found: a.Installed, Path: a.Path,
			Version: a.Version, Status: string(st.Status), Login: string(a.Login), Reason: st.Reason})
	}
	return rep, nil
}

func (rep doctorReport) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUNTIME\tFOUND\tPATH\tVERSION\tSTATUS\tLOGIN\tWHY")
	for _, r := range rep.Runtimes {
		fmt.Fprintf(tw, "%s\t%t\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Found, orDash(r.Path), orDash(r.Version), r.Status, orDash(r.Login), orDash(r.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Notify) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NOTIFY\tTYPE\tKINDS\tLAST SENT\tLAST FAILURE\tERROR")
		for _, s := range rep.Notify {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Type, strings.Join(s.Kinds, ","), orDash(s.LastSuccess),
				orDash(s.LastFailure), orDash(s.LastError))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\nstate directory: %s\nconfiguration: %s\n", rep.StateDir, rep.Config)
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
