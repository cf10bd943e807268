package jsonl

import (
	"errors"
	"fmt"
	"os"
)

// ErrNotRegular is what OpenRegular returns for a path that is there but
// is not a regular file (a FIFO, a socket, a device, a directory): never a
// transcript, whatever its name.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens the regular file at path for reading. Whatever else
// is there is refused with an error wrapping ErrNotRegular, and refused
// without blocking: a plain open of a FIFO waits for a writer, pinning an
// OS thread for as long (one such name in a transcripts folder, asked for
// 10,000 times, exhausted the daemon's threads). The file is opened
// without blocking (see openNonblock), then the opened file itself is
// checked, so that a FIFO swapped in after a caller's stat cannot block it
// either. Every open of a transcript, and of an index of one, goes
// through here.
func OpenRegular(path string) (*os.File, error) {
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fi.Mode().Type())}
	}
	return f, nil
}

// OpenDir opens the directory at path for reading its entries; anything
// else there is an error wrapping ErrNotRegular, returned without
// blocking (a FIFO in a directory's place must not hold a listing).
func OpenDir(path string) (*os.File, error) {
	f, err := openDir(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.IsDir() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s): not a directory", ErrNotRegular, fi.Mode().Type())}
	}
	return f, nil
}
