package proc

import (
	"bytes"
	"io"
	"testing"

	"go.uber.org/zap"
)

// chunkReader returns data in reads of the sizes cuts gives in turn, as a
// pipe may. A 0 is one empty read (never two in a row: bufio gives up after
// a hundred, which a pipe does not do).
type chunkReader struct {
	data  []byte
	cuts  []byte
	i     int
	empty bool // the last read was empty
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(r.data)
	if len(r.cuts) > 0 {
		c := int(r.cuts[r.i%len(r.cuts)])
		r.i++
		if c == 0 && !r.empty {
			r.empty = true
			return 0, nil
		}
		if c > 0 {
			n = min(n, c)
		}
	}
	r.empty = false
	n = copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// readOut is what readStdout reported: a line, or an oversize length.
type readOut struct {
	line     string
	oversize int
}

// FuzzReadStdout: however stdout arrives in reads, readStdout reports what a
// plain split at newlines does: each line without its newline and one
// trailing CR, a line longer than MaxLine as its size instead, and a last
// line without a newline at EOF.
func FuzzReadStdout(f *testing.F) {
	f.Add([]byte("one\r\ntwo\n\nthree"), []byte{1, 3}, uint16(100))
	f.Add([]byte("toolong\nok\n"), []byte{2}, uint16(4))
	f.Add([]byte("\r\n\r\r\n"), []byte{0, 1}, uint16(1))
	f.Add(bytes.Repeat([]byte("x"), 70<<10), []byte{255}, uint16(65535))
	f.Fuzz(func(t *testing.T, data, cuts []byte, max uint16) {
		limit := int(max) + 1
		var want []readOut
		segs := bytes.Split(data, []byte("\n"))
		for i, s := range segs {
			if i == len(segs)-1 && len(s) == 0 {
				break // data ended with a newline (or was empty)
			}
			if len(s) > limit {
				want = append(want, readOut{oversize: len(s)})
			} else {
				want = append(want, readOut{line: string(bytes.TrimSuffix(s, []byte("\r")))})
			}
		}
		var got []readOut
		p := &Process{log: zap.NewNop(), cfg: Config{MaxLine: limit,
			OnLine:     func(b []byte) { got = append(got, readOut{line: string(b)}) },
			OnOversize: func(n int) { got = append(got, readOut{oversize: n}) }}}
		p.readStdout(&chunkReader{data: data, cuts: cuts})
		if len(got) != len(want) {
			t.Fatalf("%d outputs, want %d:\ngot  %v\nwant %v", len(got), len(want), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("output %d: got %+v, want %+v", i, got[i], want[i])
			}
		}
	})
}
