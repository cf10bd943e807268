package files

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/workspaces"
)

// MaxContent caps the bytes of a file served: a page of the app's viewer
// needs no more, and a reply stays well under the frames clients accept
// (base64 makes 1 MiB about 1.4 MB).
const MaxContent = 1 << 20

// sniffBytes is how much of a file decides whether it is binary.
const sniffBytes = 8 << 10

// Read serves the file at a client's path p in w: its first MaxContent
// bytes, as UTF-8 text, or base64 when they are binary. A directory, or a
// path that is not a regular file (a FIFO would block the read), is
// refused.
func Read(w workspaces.Workspace, p string) (rpc.FileGetResult, error) {
	t, err := Resolve(w, p)
	if err != nil {
		return rpc.FileGetResult{}, err
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
	// below as not regular.
	f, err := os.OpenFile(t.Abs, os.O_RDONLY|nonblock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return rpc.FileGetResult{}, rpc.InvalidPath(p, "does not exist")
	}
	if err != nil {
		return rpc.FileGetResult{}, rpc.InvalidPath(p, "cannot be read: "+reason(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return rpc.FileGetResult{}, rpc.InvalidPath(p, "cannot be read: "+reason(err))
	}
	if info.IsDir() {
		return rpc.FileGetResult{}, rpc.InvalidPath(p, "is a directory (list it with workspace/files/list)")
	}
	if !info.Mode().IsRegular() {
		return rpc.FileGetResult{}, rpc.InvalidPath(p, "is not a regular file")
	}
	buf := make([]byte, min(info.Size(), MaxContent)+1)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return rpc.FileGetResult{}, rpc.InvalidPath(p, "cannot be read: "+reason(err))
	}
	// The file may have grown since Stat: the read, not the size, says
	// whether there is more than the cap.
	data, truncated := buf[:n], n > MaxContent
	if truncated {
		data = data[:MaxContent]
	}
	res := rpc.FileGetResult{Path: t.Rel, Size: max(info.Size(), int64(n)), Truncated: truncated,
		IsSensitive: Sensitive(t.Rel)}
	if Binary(data, truncated) {
		res.Encoding, res.IsBinary = rpc.EncodingBase64, true
		res.Content = base64.StdEncoding.EncodeToString(data)
		return res, nil
	}
	if truncated {
		data = cutAtRune(data)
	}
	res.Encoding, res.Content = rpc.EncodingUTF8, string(data)
	return res, nil
}

// Binary reports whether data (the start of a file, cut short when more
// follows) is binary: a NUL byte, or bytes that are not UTF-8, in its
// first sniffBytes. A rune cut by the end of the sample is not held
// against it.
func Binary(data []byte, more bool) bool {
	sample := data
	if len(sample) > sniffBytes {
		sample, more = sample[:sniffBytes], true
	}
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	if more {
		sample = cutAtRune(sample)
	}
	return !utf8.Valid(sample)
}

// cutAtRune drops an incomplete UTF-8 sequence from the end of b (the cap
// may fall inside a character).
func cutAtRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// Sniff reads the start of the file at abs and reports whether it is
// binary; false when it cannot be read.
func Sniff(abs string) bool {
	f, err := os.OpenFile(abs, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, sniffBytes+1)
	n, _ := io.ReadFull(f, buf)
	return Binary(buf[:n], n > sniffBytes)
}

// reason is err without the path, which the error's data carries.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
