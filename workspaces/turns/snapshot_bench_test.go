package turns

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkSnapshot compares a turn's snapshot with the same snapshot made
// by git commands alone (copy the index, add -A, write-tree, with the
// same private index and object store), on a repository of 10,000 files
// with 100 changed since the last commit. The target: ≤ 1.5×.
//
// Each side gets a repository of its own: the first snapshot writes the
// changed files' objects, which later ones find, so sharing one would
// favour whichever runs second.
func BenchmarkSnapshot(b *testing.B) {
	ctx := context.Background()
	b.Run("cdevd", func(b *testing.B) {
		f := manyFiles(b)
		for b.Loop() {
			if _, err := f.repo.Snapshot(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("git", func(b *testing.B) {
		f := manyFiles(b)
		gitSnapshots(b, f)
	})
}

// manyFiles is a repository of 10,000 committed files, 100 of them
// changed since.
func manyFiles(b *testing.B) *fixture {
	f := newFixture(b)
	for i := range 10_000 {
		f.write(fmt.Sprintf("d%02d/f%05d.txt", i%100, i), fmt.Sprintf("file %d\n", i))
	}
	f.git("add", "-A")
	f.git("commit", "-q", "-m", "many")
	for i := range 100 {
		f.write(fmt.Sprintf("d%02d/f%05d.txt", i%100, i*7), "changed\n")
	}
	return f
}

// gitSnapshots makes the snapshot with git alone, b.N times.
func gitSnapshots(b *testing.B, f *fixture) {
	tmp := b.TempDir()
	index := filepath.Join(tmp, "index")
	env := append(append(os.Environ(), f.env...), f.repo.env(index)...)
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = f.dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	for b.Loop() {
		if _, err := copyFile(filepath.Join(f.dir, ".git", "index"), index+".new"); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(index+".new", index); err != nil {
			b.Fatal(err)
		}
		run("add", "-A", "--", ".")
		run("write-tree")
	}
}
