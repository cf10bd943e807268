package lineindex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// shapesIndex records the Shape its scan gave each line.
type shapesIndex struct {
	plain
	shapes []*jsonl.Shape
}

func (x *shapesIndex) add([]byte) bool             { x.shapes = append(x.shapes, x.Shape()); return true }
func (x *shapesIndex) AppendFacts(b []byte) []byte { return b }
func (x *shapesIndex) ReadFacts([]byte) error      { return nil }
func (x *shapesIndex) Merge(*shapesIndex)          {}

// TestScanShape: a scan gives no Shape for its first lines (a short file's
// scan makes none), then one Shape for the rest; the index keeps none once
// the scan is over, and a scan of an append starts afresh.
func TestScanShape(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	writeFile(t, p, strings.Repeat("{}\n", 2*shapeAfter))
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	x, _, err := Refresh(context.Background(), nil, f, fi, (*shapesIndex).add, zap.NewNop(), "test")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range x.shapes {
		if want := i+1 >= shapeAfter; (s != nil) != want || (want && s != x.shapes[len(x.shapes)-1]) {
			t.Fatalf("line %d: shape %p; want one only from line %d", i+1, s, shapeAfter)
		}
	}
	if x.Shape() != nil {
		t.Error("the index keeps its scan's Shape")
	}
	appendFile(t, p, "{}\n")
	fi, _ = f.Stat()
	y, _, err := Refresh(context.Background(), x, f, fi, (*shapesIndex).add, zap.NewNop(), "test")
	if err != nil || len(y.shapes) != 2*shapeAfter+1 || y.shapes[2*shapeAfter] != nil {
		t.Errorf("append: %v, %d lines, last shape %p; want a line more, read without one", err, len(y.shapes), y.shapes[len(y.shapes)-1])
	}
}
