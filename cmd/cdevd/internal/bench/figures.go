package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cdevd/cdevd/runtimes"
	"github.com/cdevd/cdevd/runtimes/claude"
)

// sample is one repetition of a figure: its value (seconds or bytes) and
// the baseline measured next to it (0: none).
type sample struct {
	value, value2 float64 // value2: a second percentile, when the figure has one
	base          float64
	note          string // said in the baseline cell, e.g. what was lost
	failed        bool   // a correctness condition of the figure broke (events lost)
}

type unit int

const (
	unitSeconds unit = iota
	unitBytes
)

// figure is one row of the table.
type figure struct {
	key, title string
	unit       unit
	baseName   string  // what the baseline is
	ratioMax   float64 // the target is cdevd ÷ baseline ≤ ratioMax
	valueMax   float64 // the target is value ≤ valueMax (seconds or bytes)
	target     string
	measure    func(*Bench, context.Context) (sample, error)
}

// figuresFor is the table, in its order, with the transcript figures once
// for each registered runtime whose transcripts the bench can write: the
// first (the default runtime) keyed plainly ("page-cold"), the others by
// their id ("codex-page-cold").
func figuresFor(infos []runtimes.Info) []figure {
	fs := slices.Clone(roundTrips)
	first := true
	for _, info := range infos {
		st, ok := stores[info.ID]
		if !ok {
			continue
		}
		prefix := info.ID + "-"
		if first {
			prefix, first = "", false
		}
		fs = append(fs, transcriptFigures(st, prefix)...)
	}
	fs = append(fs, repoFigures...)
	if slices.ContainsFunc(infos, func(i runtimes.Info) bool { return i.ID == claude.ID }) {
		fs = append(fs, agentFigures...)
	}
	return append(fs, eventFigures...)
}

// repoFigures are measured on one generated repository of {files} files,
// {changed} of them changed (repo.go).
var repoFigures = []figure{
	{key: "git-status", title: "git/status round trip p50, {files} files with {changed} changed", baseName: "git status --porcelain=v2",
		ratioMax: 1.2, target: "≤ 1.2×", measure: (*Bench).gitStatus},
	{key: "snapshot", title: "a turn's snapshot p50, the same repository", baseName: "git commands alone",
		ratioMax: 1.5, target: "≤ 1.5×", measure: (*Bench).snapshot},
	{key: "search", title: "repository/search round trip p50 after the first query, the same repository", baseName: "echo",
		valueMax: 0.020, target: "≤ 20 ms", measure: (*Bench).search},
	{key: "send-hold-first", title: "session/send round trip, the first turn ever in the same repository (the start snapshot holds the prompt)",
		baseName: "in a 1-file repository", target: "a measure", measure: (*Bench).sendHoldFirst},
	{key: "send-hold", title: "session/send round trip p50, a new session's first turn after an earlier one, nothing changed since",
		baseName: "in a 1-file repository", target: "a measure", measure: (*Bench).sendHold},
	{key: "send-hold-changed", title: "the same after a file of the tree changed",
		baseName: "in a 1-file repository", target: "a measure", measure: (*Bench).sendHoldChanged},
	{key: "file-get", title: "workspace/file/get of a 1 MB file, round trip p50", baseName: "echo",
		valueMax: 0.010, target: "≤ 10 ms", measure: (*Bench).fileGet},
}

var roundTrips = []figure{
	{key: "list", title: "workspace/list round trip p50", baseName: "echo", ratioMax: 1.5, target: "≤ 1.5×", measure: (*Bench).list},
	{key: "initialize", title: "initialize round trip p50", baseName: "echo", ratioMax: 2.5, target: "≤ 2.5×", measure: (*Bench).initialize},
	{key: "memory", title: "RSS per idle initialized connection ({conns} conns)", unit: unitBytes, baseName: "bare echo", valueMax: 12 << 10,
		target: "≤ 12 KB", measure: (*Bench).memory},
}

var eventFigures = []figure{
	{key: "burst", title: "burst of {burst} deltas to {watchers} watchers, creation→arrival p99", valueMax: 0.050,
		target: "≤ 50 ms", measure: (*Bench).burst},
	{key: "steady", title: "steady {rate} events/s to {watchers} watchers for {seconds} s, p99", valueMax: 0.010,
		target: "≤ 10 ms, none lost", measure: (*Bench).steady},
	{key: "append", title: "transcript append → watcher p50 / p99", target: "keep (0.5 / 0.9–4.4 ms)", measure: (*Bench).appendTail},
}

// transcriptFigures are the transcript figures of st, keyed with prefix. The
// limits are what a user of the history screens feels: a never-read first
// page may scan the whole file (≤ 100 ms), while after a restart the saved
// index should spare that scan (≤ 25 ms).
func transcriptFigures(st store, prefix string) []figure {
	on := func(m func(*Bench, context.Context, store) (sample, error)) func(*Bench, context.Context) (sample, error) {
		return func(b *Bench, ctx context.Context) (sample, error) { return m(b, ctx, st) }
	}
	return []figure{
		{key: prefix + "page-cold", title: st.name + ": first page (50 newest) of a never-read {big} transcript", baseName: "read file once", valueMax: 0.100,
			target: "≤ 100 ms", measure: on((*Bench).pageCold)},
		{key: prefix + "page-restart", title: st.name + ": the same right after a daemon restart", baseName: "read file once", valueMax: 0.025,
			target: "≤ 25 ms", measure: on((*Bench).pageRestart)},
		{key: prefix + "page-warm", title: st.name + ": page of an indexed transcript, round trip p50", baseName: "echo", valueMax: 0.0015,
			target: "≤ 1.5 ms", measure: on((*Bench).pageWarm)},
		{key: prefix + "history-first", title: st.name + ": history of {sessions} sessions, first call", baseName: "read files once", valueMax: 0.150,
			target: "≤ 150 ms", measure: on((*Bench).historyFirst)},
		{key: prefix + "history-later", title: st.name + ": the same, later calls p50", baseName: "echo", valueMax: 0.003,
			target: "≤ 3 ms", measure: on((*Bench).historyLater)},
		{key: prefix + "history-restart", title: st.name + ": the same, first call after a daemon restart", baseName: "read files once", valueMax: 0.150,
			target: "≤ 150 ms", measure: on((*Bench).historyRestart)},
	}
}

// row is a figure's printed line.
type row struct{ title, value, baseline, ratio, spread, target, met string }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// row is the median of the samples, with its baseline, ratio and verdict.
func (f figure) row(samples []sample) row {
	var vals, vals2, bases, ratios []float64
	failed := false
	var notes []string
	for _, s := range samples {
		vals, vals2, bases = append(vals, s.value), append(vals2, s.value2), append(bases, s.base)
		if s.base > 0 {
			ratios = append(ratios, s.value/s.base)
		}
		failed = failed || s.failed
		if s.note != "" {
			notes = append(notes, s.note)
		}
	}
	v := median(vals)
	r := row{title: f.title, value: f.format(v), baseline: "-", ratio: "-", target: f.target, met: "-",
		spread: f.format(slices.Min(vals)) + "–" + f.format(slices.Max(vals))}
	if f.key == "append" {
		r.value = f.format(v) + " / " + f.format(median(vals2))
	}
	if len(ratios) == len(samples) {
		r.baseline = fmt.Sprintf("%s (%s)", f.format(median(bases)), f.baseName)
		r.ratio = fmt.Sprintf("%.2f×", median(ratios))
		r.spread = fmt.Sprintf("%.2f–%.2f×", slices.Min(ratios), slices.Max(ratios))
	}
	if len(notes) > 0 {
		if r.baseline == "-" {
			r.baseline = ""
		} else {
			r.baseline += "; "
		}
		r.baseline += notes[len(notes)/2]
	}
	switch {
	case f.ratioMax > 0:
		r.met = yesNo(median(ratios) <= f.ratioMax && !failed)
	case f.valueMax > 0:
		r.met = yesNo(v <= f.valueMax && !failed)
	case failed:
		r.met = "no"
	}
	return r
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func (f figure) format(v float64) string {
	if f.unit == unitBytes {
		return fmt.Sprintf("%.1f KB", v/1024)
	}
	d := time.Duration(v * float64(time.Second))
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", v*1e6)
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", v*1e3)
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", v*1e3)
	default:
		return fmt.Sprintf("%.2f s", v)
	}
}
