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

// OpenRegular opens the regular file at path for reading. Whatever else is
// there is refused with an error wrapping ErrNotRegular, without blocking:
// a plain open of a FIFO waits for a writer, pinning an OS thread for as
// long (one such name in a transcripts folder, asked for 10,000 times,
// exhausted the daemon's threads). The opened file itself is checked, so
// that a FIFO swapped in after a caller's stat cannot block it either.
// Every open of a transcript, and of an index of one, goes through here.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := OpenRegularInfo(path)
	return f, err
}

// OpenRegularInfo is OpenRegular, with the opened file's metadata.
func OpenRegularInfo(path string) (*os.File, os.FileInfo, error) {
	return openChecked(path, fs.FileMode.IsRegular, "")
}

// OpenDir opens the directory at path for reading its entries; anything
// else there is an error wrapping ErrNotRegular, returned without
// blocking (a FIFO in a directory's place must not hold a listing).
func OpenDir(path string) (*os.File, error) {
	f, _, err := openChecked(path, fs.FileMode.IsDir, ": not a directory")
	return f, err
}

// openChecked opens path, then refuses the file unless isKind accepts its
// mode, with an error wrapping ErrNotRegular (and suffix); it returns the
// file's metadata too. It opens with O_NONBLOCK: the open of a FIFO then
// returns at once, with or without a writer. The flag changes nothing for a
// regular file or a directory (their reads never wait; Go leaves such a
// file out of its poller either way), nor where there are no FIFOs
// (Windows ignores it).
func openChecked(path string, isKind func(fs.FileMode) bool, suffix string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !isKind(fi.Mode()) {
		f.Close()
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)%s", ErrNotRegular, fi.Mode().Type(), suffix)}
	}
	return f, fi, nil
}
