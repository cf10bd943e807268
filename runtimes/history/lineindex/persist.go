package lineindex

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// persistFormat changes whenever the encoding below does.
const persistFormat = 1

var persistMagic = []byte("cdevd jsonl index\n")

// persistedInfo is a version of a file known from its stat fields alone:
// the one a loaded index describes (up to the end of its lines).
type persistedInfo struct {
	name     string
	size     int64
	mtime    time.Time
	dev, ino uint64
}

func (p *persistedInfo) Name() string       { return p.name }
func (p *persistedInfo) Size() int64        { return p.size }
func (p *persistedInfo) Mode() fs.FileMode  { return 0 }
func (p *persistedInfo) ModTime() time.Time { return p.mtime }
func (p *persistedInfo) IsDir() bool        { return false }
func (p *persistedInfo) Sys() any           { return nil }

// tailLen is how much of the file before the index's end is checksummed, so
// that a file rewritten in place with its size and time kept, or replaced by
// one that took its inode, is not described by an index of the old one.
const tailLen = 4 << 10

// disk keeps a Cache's persisted indexes in one directory, one file per
// indexed file, named by a hash of its path.
type disk struct {
	dir     string
	version string // the owner's: bumped when what its add gathers changes
}

func (d *disk) name(path string) string {
	h := sha256.Sum256([]byte(path))
	return filepath.Join(d.dir, hex.EncodeToString(h[:16])+".idx")
}

// encode is the persisted form of x, an index of the file at path whose
// tailLen bytes before x's position sum to tail (tailSum).
func encode(x *Index, facts []byte, path, version string, tail uint32) ([]byte, error) {
	dev, ino, ok := FileKey(x.fi)
	if !ok {
		return nil, errors.New("no file identity")
	}
	// The index is saved as of its last complete line: a torn last line is
	// read again after a load.
	pos := x.split.Pos
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

// decode returns the index in data if it is one of this format and version,
// of path, and still describes a prefix of f, whose current version is fi:
// the same file, not shorter, its last indexed bytes unchanged. Anything
// else is an error, and the caller scans the file instead.
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
	n := r.Uvarint()
	if r.Bad {
		return nil, errTruncated
	}
	if n > uint64(len(r.B)) || pos < 0 || skipped > uint64(pos) {
		return nil, errors.New("bad header")
	}
	lines, err := decodeSpans(&r, n, pos)
	if err != nil {
		return nil, err
	}
	facts = r.Bytes() // not a copy: ReadFacts may keep data (Gemini's reads its tables in place), mapped
	if r.Bad {
		return nil, errTruncated
	}
	if len(r.B) != 0 {
		return nil, errors.New("trailing bytes")
	}
	// The file it describes must still be there, at least as long, with the
	// same last indexed bytes; a file of exactly that length must not have
	// been written since.
	cd, ci, ok := FileKey(fi)
	if !ok || cd != dev || ci != ino || fi.Size() < pos || (fi.Size() == pos && fi.ModTime().UnixNano() != mtime) {
		return nil, errors.New("stale")
	}
	if got, err := tailSum(f, pos); err != nil || got != tail {
		return nil, errors.New("file changed")
	}
	x.fi = &persistedInfo{name: fi.Name(), size: pos, mtime: time.Unix(0, mtime), dev: dev, ino: ino}
	x.split = jsonl.Splitter{Pos: pos, Skipped: int(skipped)}
	x.lines = lines
	return facts, nil
}

// errBadSpan is a persisted index whose lines are not the file's: planted
// or damaged, never written by encode.
var errBadSpan = errors.New("line out of range")

// decodeSpans reads the n lines that encode wrote, in a file whose lines
// end by pos, each checked as the scan that made it guarantees: after the
// line before it and its newline, not longer than jsonl.MaxLine, its own newline
// before pos. The varints are compared as read, before any conversion: a
// wrapped one passed a check made after it, and a span stepping back (the
// first message served 3,000 times) or of negative length was kept.
func decodeSpans(r *FactReader, n uint64, pos int64) ([]Span, error) {
	lines := make([]Span, 0, n)
	end := int64(0) // where the last line ended, its newline excluded
	for i := range n {
		gap, size := r.Uvarint(), r.Uvarint()
		room := uint64(pos - end) // end <= pos: checked for the line before
		if (i > 0 && gap == 0) || gap > room || size >= room-gap || size > jsonl.MaxLine {
			return nil, errBadSpan
		}
		sp := Span{Off: end + int64(gap), N: int64(size)}
		end = sp.Off + sp.N
		lines = append(lines, sp)
	}
	return lines, nil
}

// tailSum is the checksum of the tailLen bytes of f before pos, which must
// end a line.
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

// load reads the persisted index of path, if any still describes f.
func (d *disk) load(x *Index, path string, f *os.File, fi os.FileInfo) ([]byte, error) {
	pf, err := jsonl.OpenRegular(d.name(path))
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	pi, err := pf.Stat()
	if err != nil {
		return nil, err
	}
	// Bounded: a damaged file must not make the daemon allocate without end.
	if pi.Size() > maxPersistBytes {
		return nil, errors.New("too big")
	}
	// Mapped (see mapping); else read at its size in one buffer
	// (io.ReadAll's growing was a third of loading the index of a 100 MB
	// chat file): saves replace the file by renaming, so the open one keeps
	// its size.
	var data []byte
	if x.saved = mapSaved(pf, pi.Size()); x.saved != nil {
		data = x.saved.data
	} else {
		data = make([]byte, pi.Size())
		if _, err := io.ReadFull(pf, data); err != nil {
			return nil, err
		}
	}
	facts, err := decode(x, data, path, d.version, f, fi)
	if err != nil {
		// Stale, damaged or planted: removed (the scan that follows saves
		// a true one).
		os.Remove(d.name(path))
	}
	return facts, err
}

// save writes data as the persisted index of path: to a temporary file
// renamed into place, so that a crash never leaves a wrong one that looks
// right. It then keeps the directory within its bounds.
func (d *disk) save(path string, data []byte, t Tuning) error {
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(d.dir, "tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err := cmp.Or(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), d.name(path)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return d.trim(t)
}

// trim drops the least recently saved indexes beyond the bounds, and
// temporary files left by a crash.
func (d *disk) trim(t Tuning) error {
	des, err := os.ReadDir(d.dir)
	if err != nil {
		return err
	}
	type file struct {
		name  string
		size  int64
		mtime time.Time
	}
	var files []file
	var total int64
	for _, de := range des {
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if strings.HasPrefix(de.Name(), "tmp-") {
			if time.Since(fi.ModTime()) > time.Minute { // not one being written
				os.Remove(filepath.Join(d.dir, de.Name()))
			}
			continue
		}
		files = append(files, file{de.Name(), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	slices.SortFunc(files, func(a, b file) int { return a.mtime.Compare(b.mtime) })
	for len(files) > 0 && (total > maxPersistBytes || len(files) > t.maxPersistFiles()) {
		os.Remove(filepath.Join(d.dir, files[0].name))
		total -= files[0].size
		files = files[1:]
	}
	return nil
}

// errTruncated is a persisted index cut short (FactReader.Bad).
var errTruncated = errors.New("truncated index")
