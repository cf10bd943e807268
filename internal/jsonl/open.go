package jsonl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is what OpenRegular returns for a path that is there but
// is not a regular file (a FIFO, a socket, a device, a directory): never a
// transcript, whatever its name.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens the regular file at path for reading, refusing
// whatever else is there, without blocking, with an error wrapping
// ErrNotRegular: a plain open of a FIFO waits for a writer, pinning an OS
// thread meanwhile (one such name in a transcripts folder, asked for 10,000
// times, exhausted the daemon's threads). It checks the file it opened, so
// that a FIFO swapped in after a caller's stat cannot block it either. Every
// open of a transcript, and of an index of one, goes through here.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := OpenRegularInfo(path)
	return f, err
}

// OpenRegularInfo is OpenRegular, with the opened file's metadata.
func OpenRegularInfo(path string) (*os.File, os.FileInfo, error) { return openKind(path, 0, "") }

// OpenDir opens the directory at path for reading its entries, refusing
// anything else as OpenRegular does (a FIFO in its place must not hold a
// listing).
func OpenDir(path string) (*os.File, error) {
	f, _, err := openKind(path, fs.ModeDir, ": not a directory")
	return f, err
}

// openKind opens path, and refuses the file unless its type is kind (with
// suffix added to the error). O_NONBLOCK makes the open of a FIFO return at
// once, writer or not, and changes nothing for a regular file or a
// directory (their reads never wait), nor on Windows, which ignores it.
func openKind(path string, kind fs.FileMode, suffix string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if fi.Mode().Type() != kind {
		f.Close()
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)%s", ErrNotRegular, fi.Mode().Type(), suffix)}
	}
	return f, fi, nil
}
