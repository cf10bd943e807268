package lineindex

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/jsonl"
)

const persistFormat = 1 // changes whenever the encoding below does

var persistMagic = []byte("cdevd jsonl index\n")

// mapping is a saved index's bytes, mapped rather than read: read, a first
// page after a restart of the bench's 100 MB Gemini chat file put its 6.3
// MB in fresh pages, a fault each (~20 µs; BenchmarkRestartFresh, runtimes/
// gemini/chats: 2,300 faults against 650, 65–71 ms of CPU against 16). Gemini keeps
// its tables in place. The files are the daemon's (a 0700 folder, replaced
// by renames): only a process that could as well kill the daemon could cut
// one short under it, so its faults are not recovered from. Every Index
// made from a mapping (an extended copy too) points to it: it is unmapped
// once none can be reached, as a reader may hold one the cache dropped.
type mapping struct{ data []byte }

// liveMappings counts the mappings not yet unmapped (tests).
var liveMappings atomic.Int64

// tailLen is how much of the file before the index's end is summed: a file
// rewritten with its size and time kept, or one that took its inode, fails.
const tailLen = 4 << 10

// savedName is where c persists the index of path: named by a hash of it.
func (c *Cache[T, P]) savedName(path string) string {
	h := sha256.Sum256([]byte(path))
	return filepath.Join(c.dir, hex.EncodeToString(h[:16])+".idx")
}

// encode is the persisted form of x, an index of the file at path whose
// tailLen bytes before x's position sum to tail (tailSum).
func encode(x *Index, facts []byte, path, version string, tail uint32) ([]byte, error) {
	dev, ino, ok := FileKey(x.fi)
	if !ok {
		return nil, errors.New("no file identity")
	}
	pos := x.split.Pos // a torn last line is read again after a load
	b := append([]byte(nil), persistMagic...)
	b = binary.AppendUvarint(b, persistFormat)
	b = AppendString(b, version)
	b = AppendString(b, path)
	b = binary.AppendUvarint(b, dev)
	b = binary.AppendUvarint(b, ino)
	b = binary.AppendVarint(b, pos)
	b = binary.AppendVarint(b, x.fi.ModTime().UnixNano())
	b = binary.AppendUvarint(b, uint64(x.split.Skipped))
	b = binary.LittleEndian.AppendUint32(b, tail)
	b = binary.AppendUvarint(b, uint64(len(x.lines)))
	end := int64(0)
	for _, sp := range x.lines {
		b = binary.AppendUvarint(b, uint64(sp.Off-end))
		b = binary.AppendUvarint(b, uint64(sp.N))
		end = sp.Off + sp.N
	}
	b = AppendString(b, string(facts))
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decode reads into x the index in data if it is one of this format and
// version, of path, that still describes a prefix of f, whose version is fi.
func decode(x *Index, data []byte, path, version string, f *os.File, fi os.FileInfo) (facts []byte, err error) {
	if len(data) < len(persistMagic)+4 || !bytes.HasPrefix(data, persistMagic) {
		return nil, errors.New("not an index")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, errors.New("checksum mismatch")
	}
	r := FactReader{B: body[len(persistMagic):]}
	if r.Uvarint() != persistFormat || string(r.Bytes()) != version || string(r.Bytes()) != path {
		return nil, errors.New("another format, version or file")
	}
	dev, ino := r.Uvarint(), r.Uvarint()
	pos, mtime := r.Varint(), r.Varint()
	skipped := r.Uvarint()
	tail := r.Uint32()
	n := r.Uvarint() // read short, each is zero: the facts then are
	if n > uint64(len(r.B)) || pos < 0 || skipped > uint64(pos) {
		return nil, errors.New("bad header")
	}
	if x.lines, err = decodeSpans(&r, n, pos); err != nil {
		return nil, err
	}
	facts = r.Bytes() // not a copy: Gemini's ReadFacts keeps its tables in place, mapped
	if r.Bad || len(r.B) != 0 {
		return nil, errors.New("truncated index, or trailing bytes")
	}
	// The same file, at least as long, its last indexed bytes the same;
	// written since if of exactly that length.
	cd, ci, ok := FileKey(fi)
	if !ok || cd != dev || ci != ino || fi.Size() < pos || (fi.Size() == pos && fi.ModTime().UnixNano() != mtime) {
		return nil, errors.New("stale")
	}
	if got, err := tailSum(f, pos); err != nil || got != tail {
		return nil, errors.New("file changed")
	}
	x.fi = fi // the file's version: its own when no byte was added since
	x.split = jsonl.Splitter{Pos: pos, Skipped: int(skipped)}
	return facts, nil
}

// decodeSpans reads the n lines encode wrote, in a file whose lines end by
// pos, each checked as a scan makes them: after the line before and its
// newline, at most jsonl.MaxLine, its own newline before pos. The varints
// are compared as read: converted first, a wrapped one passed, and a span
// stepping back (the first message served 3,000 times) was kept.
func decodeSpans(r *FactReader, n uint64, pos int64) ([]Span, error) {
	lines := make([]Span, 0, n)
	end := int64(0) // where the last line ended, its newline excluded
	for i := range n {
		gap, size := r.Uvarint(), r.Uvarint()
		room := uint64(pos - end) // end <= pos: checked for the line before
		if (i > 0 && gap == 0) || gap > room || size >= room-gap || size > jsonl.MaxLine {
			return nil, errors.New("line out of range")
		}
		sp := Span{Off: end + int64(gap), N: int64(size)}
		end = sp.Off + sp.N
		lines = append(lines, sp)
	}
	return lines, nil
}

// tailSum sums the tailLen bytes of f before pos, which must end a line.
func tailSum(f *os.File, pos int64) (uint32, error) {
	from := max(0, pos-tailLen)
	b := make([]byte, pos-from)
	if _, err := f.ReadAt(b, from); err != nil {
		return 0, err
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return 0, errors.New("no line ends there")
	}
	return crc32.Checksum(b, castagnoli), nil
}

// load reads the persisted index of path, if one still describes f, whose
// current version is fi. It is mapped (see mapping).
func (c *Cache[T, P]) load(path string, f *os.File, fi os.FileInfo) (P, error) {
	pf, err := jsonl.OpenRegular(c.savedName(path))
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	pi, err := pf.Stat()
	if err != nil {
		return nil, err
	}
	if pi.Size() > maxPersistBytes { // a damaged file, say
		return nil, errors.New("too big")
	}
	x := P(new(T))
	b := x.base()
	var data []byte // nil where it cannot be mapped: then not an index
	if b.saved = mapSaved(pf, pi.Size()); b.saved != nil {
		data = b.saved.data
	}
	facts, err := decode(b, data, path, c.version, f, fi)
	if err == nil {
		err = x.ReadFacts(facts)
	}
	if err != nil {
		os.Remove(c.savedName(path)) // stale, damaged or planted: a scan saves a true one
		return nil, err
	}
	return x, nil
}

// save persists x, e's index, whose file's tail sums to tail; the caller
// holds e's lock. A failure costs only a scan after a restart: logged.
func (c *Cache[T, P]) save(e *cached[P], x P, tail uint32) {
	if err := c.write(e.path, x, tail); err != nil {
		c.log.Warn("cannot persist "+c.what+" index", zap.String("path", e.path), zap.Error(err))
		return
	}
	e.saved = x.base().split.Pos
}

// write writes x as the saved index of path by a rename, so that a crash
// never leaves a wrong index that looks right, then keeps the directory
// within bounds.
func (c *Cache[T, P]) write(path string, x P, tail uint32) error {
	data, err := encode(x.base(), x.AppendFacts(nil), path, c.version, tail)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, "tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // nothing left to remove once renamed
	_, err = tmp.Write(data)
	if err := cmp.Or(err, tmp.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), c.savedName(path)); err != nil {
		return err
	}
	return c.trim()
}

// trim drops the least recently saved indexes beyond the bounds, and
// temporary files left by a crash.
func (c *Cache[T, P]) trim() error {
	des, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	var files []os.FileInfo
	var total int64
	for _, de := range des {
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if strings.HasPrefix(de.Name(), "tmp-") {
			if time.Since(fi.ModTime()) > time.Minute { // not one being written
				os.Remove(filepath.Join(c.dir, de.Name()))
			}
			continue
		}
		files = append(files, fi)
		total += fi.Size()
	}
	slices.SortFunc(files, func(a, b os.FileInfo) int { return a.ModTime().Compare(b.ModTime()) })
	for len(files) > 0 && (total > maxPersistBytes || len(files) > c.tuning.maxPersistFiles()) {
		os.Remove(filepath.Join(c.dir, files[0].Name()))
		total -= files[0].Size()
		files = files[1:]
	}
	return nil
}
