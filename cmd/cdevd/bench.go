package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/cmd/cdevd/internal/bench"
	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/scripted"
)

// benchCmd is `cdevd bench`: it serves cdevd and a bare echo server from
// this binary, as separate processes, measures them as a client, and prints
// the performance table.
func benchCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "small sizes: a smoke test of the harness, not a measurement")
	only := fs.String("only", "", "measure these figures only (keys between commas): "+strings.Join(bench.Figures(builtinInfos()), ", "))
	reps := fs.Int("reps", 3, "repetitions of each figure (the median is reported); 1 with -quick unless given")
	verbose := fs.Bool("v", false, "say which figure is being measured")
	cpuProfile := fs.String("cpuprofile", "", "write the bench client's CPU profile here (what the client takes from the daemon)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// -quick checks that every figure's plumbing works, not its number: a
	// median of one repetition does that, and each repetition of the
	// restart figures costs a daemon restart (the most of -quick's time).
	if *quick && !flagGiven(fs, "reps") {
		*reps = 1
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	infos := builtinInfos()
	clis, err := bench.FindCLIs(infos)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	opts := bench.Options{Self: self, CLIs: clis, Runtimes: infos, Quick: *quick, Only: *only, Reps: *reps, Out: stdout}
	if *verbose {
		opts.Log = stderr
	}
	return bench.Run(ctx, opts)
}

// flagGiven reports whether name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// benchEcho is the hidden `cdevd bench-echo`: the bench's baseline server.
func benchEcho(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("bench-echo takes no arguments")
	}
	return bench.Echo(os.Stdin, stdout)
}

// benchRuntime is the scripted runtime `serve --bench-runtime` adds: its
// CLI is this binary (main runs scripted.Main when the adapter starts it),
// and it keeps its transcripts under the state directory.
func benchRuntime(home string, log *zap.Logger) (runtimes.Adapter, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return scripted.New(scripted.Config{Bin: self, StateDir: filepath.Join(home, "bench-scripted"), Logger: log.Named("scripted")}), nil
}
