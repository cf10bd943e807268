package rollout

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// statAt is jsonl.StatAt (an lstat of name relative to the open directory
// dir, by fstatat(2)) that also returns the file's identity, which List
// remembers a rollout's workspace by.
func statAt(dir *os.File, name string) (os.FileInfo, fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, fileID{}, &os.PathError{Op: "lstat", Path: dir.Name() + "/" + name, Err: err}
	}
	fi := &statInfo{
		name:  name,
		size:  st.Size,
		mode:  os.FileMode(st.Mode & 0o777),
		mtime: time.Unix(st.Mtim.Unix()),
		// What os.SameFile and the index cache compare.
		sys: syscall.Stat_t{Dev: st.Dev, Ino: st.Ino},
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		fi.mode |= os.ModeIrregular
	}
	return fi, fileID{dev: st.Dev, ino: st.Ino, ok: true}, nil
}

// statInfo is the os.FileInfo of statAt.
type statInfo struct {
	name  string
	size  int64
	mode  os.FileMode
	mtime time.Time
	sys   syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.size }
func (s *statInfo) Mode() os.FileMode  { return s.mode }
func (s *statInfo) ModTime() time.Time { return s.mtime }
func (s *statInfo) IsDir() bool        { return false }
func (s *statInfo) Sys() any           { return &s.sys }
