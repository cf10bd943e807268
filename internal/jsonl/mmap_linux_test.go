package jsonl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// mappedIndex is mergingIndex that also notes whether its file was mapped
// while a scan took its lines: /proc/self/maps names the file then.
type mappedIndex struct {
	mergingIndex
	path   string
	mapped bool
}

func (x *mappedIndex) add(b []byte) bool {
	if len(x.all) == 0 {
		maps, err := os.ReadFile("/proc/self/maps")
		x.mapped = err == nil && strings.Contains(string(maps), x.path)
	}
	return x.mergingIndex.add(b)
}

func (x *mappedIndex) Merge(y *mappedIndex) {
	x.mergingIndex.Merge(&y.mergingIndex)
	x.mapped = x.mapped && y.mapped
}

// scanWith indexes p in one scan or in parts on procs cores, mapping the
// parts of mapFrom bytes or more.
func scanWith(t *testing.T, p string, procs int, mapFrom int64) *mappedIndex {
	t.Helper()
	defer func(m, pm int64, n int) { mapMin, parallelMin = m, pm; runtime.GOMAXPROCS(n) }(mapMin, parallelMin, runtime.GOMAXPROCS(procs))
	mapMin, parallelMin = mapFrom, 64<<10
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	add := func(x *mappedIndex, b []byte) bool { x.path = p; return x.add(b) }
	x, sc, err := Refresh(context.Background(), nil, f, fi, add, zap.NewNop(), "test")
	if err != nil || !sc.Full || sc.Bytes != fi.Size() {
		t.Fatalf("scan %+v, %v", sc, err)
	}
	return x
}

// TestMappedScan: a scan of a mapped file indexes it exactly as one that
// reads it: every line, including those longer than a chunk and those
// across the chunks a mapping is fed in, and a torn last line held.
func TestMappedScan(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	var b strings.Builder
	for i := 0; b.Len() < 3*ChunkSize; i++ {
		if i%9 == 0 {
			fmt.Fprintf(&b, "# comment %d\n", i)
		}
		n := i % 300
		if i == 500 {
			n = ChunkSize + 7 // longer than a chunk
		}
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", n))
	}
	b.WriteString("torn")
	writeFile(t, p, b.String())
	read := scanWith(t, p, 1, 1<<40)
	if read.mapped {
		t.Fatal("a scan told not to map mapped")
	}
	for _, procs := range []int{1, 2, 3} {
		x := scanWith(t, p, procs, 0)
		if !x.mapped {
			t.Errorf("%d parts: the file was not mapped", procs)
		}
		if !slices.Equal(x.Lines(), read.Lines()) || !slices.Equal(x.all, read.all) {
			t.Fatalf("%d parts mapped: %d lines, owner saw %d; read: %d, %d", procs, len(x.Lines()), len(x.all), len(read.Lines()), len(read.all))
		}
		if xs, rs := x.split, read.split; xs.Pos != rs.Pos || string(xs.Pending) != string(rs.Pending) || xs.Partial != rs.Partial {
			t.Errorf("%d parts mapped: splitter %+v, read %+v", procs, xs, rs)
		}
	}
}

// TestMappedScanCutShort: a file cut short while a scan has it mapped (its
// pages past the new end then fault) is read again as it now is, not taken
// as it was, and the daemon does not die of the fault.
func TestMappedScanCutShort(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	var b strings.Builder
	for i := 0; b.Len() < 4*ChunkSize; i++ {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%200))
	}
	writeFile(t, p, b.String())
	defer func(m int64) { mapMin = m }(mapMin)
	mapMin = 0
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	const kept = "line 0 \n"
	cut := false
	add := func(x *mergingIndex, l []byte) bool {
		if !cut {
			cut = true
			if err := os.Truncate(p, int64(len(kept))); err != nil {
				t.Error(err)
			}
		}
		return x.add(l)
	}
	x, _, err := Refresh(context.Background(), nil, f, fi, add, zap.NewNop(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x.all, []string{"line 0 "}) {
		n := min(len(x.all), 3)
		t.Errorf("indexed %d lines (%q…), want the one left", len(x.all), x.all[:n])
	}
}

var sink byte

// TestMappedFaultElsewhere: only a fault in the mapping is taken for a file
// cut short; any other (a bug in a walker) goes on as the panic it is.
func TestMappedFaultElsewhere(t *testing.T) {
	data := []byte("line\n")
	// A page no longer mapped: reading it faults at its address, as a
	// mapping's page past a file's end does.
	gone, err := unix.Mmap(-1, 0, os.Getpagesize(), unix.PROT_READ, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Munmap(gone); err != nil {
		t.Fatal(err)
	}
	defer func() {
		r := recover()
		if err, ok := r.(error); !ok || errors.Is(err, errShrank) {
			t.Fatalf("recovered %v, want the fault's own panic", r)
		}
	}()
	err = feedMapped(context.Background(), data, func([]byte) { sink = gone[1] })
	t.Fatalf("feedMapped returned %v; want a panic", err)
}
