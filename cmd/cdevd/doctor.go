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
	_, err := fmt.Fprintf(w, "\nstate directory: %s\nconfiguration: %s\n", rep.StateDir, rep.Config)
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
