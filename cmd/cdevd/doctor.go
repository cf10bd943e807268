package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/config"
	"github.com/cdevd/cdevd/registry"
)

// doctorReport is what `cdevd doctor` knows. The table and --json are both
// printed from it, so that they cannot disagree.
type doctorReport struct {
	Runtimes []doctorRuntime `json:"runtimes"`
	// StateDir is $CDEVD_HOME (or its default); Config is the
	// configuration file read, which need not exist.
	StateDir string `json:"state_dir"`
	Config   string `json:"config"`
}

type doctorRuntime struct {
	ID      string `json:"id"`
	Found   bool   `json:"found"`
	Path    string `json:"path"`
	Version string `json:"version"`
	Status  string `json:"status"`
	// Reason says why the runtime cannot be used; empty when it can.
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
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.writeTable(stdout)
}

func diagnose() (doctorReport, error) {
	h, err := home()
	if err != nil {
		return doctorReport{}, err
	}
	cfg, err := config.Load(h, builtins...)
	if err != nil {
		return doctorReport{}, err
	}
	reg, err := registry.New(adapters(zap.NewNop(), 0, cfg, h)...)
	if err != nil {
		return doctorReport{}, err
	}
	defer reg.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep := doctorReport{Runtimes: []doctorRuntime{}, StateDir: h, Config: cfg.Path}
	for _, id := range reg.IDs() {
		st := reg.Status(ctx, id)
		a := st.Availability
		rep.Runtimes = append(rep.Runtimes, doctorRuntime{ID: id, Found: a.Installed, Path: a.Path,
			Version: a.Version, Status: string(st.Status), Reason: st.Reason})
	}
	return rep, nil
}

func (rep doctorReport) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUNTIME\tFOUND\tPATH\tVERSION\tSTATUS\tWHY")
	for _, r := range rep.Runtimes {
		fmt.Fprintf(tw, "%s\t%t\t%s\t%s\t%s\t%s\n", r.ID, r.Found, orDash(r.Path), orDash(r.Version), r.Status, orDash(r.Reason))
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
