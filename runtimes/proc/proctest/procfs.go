package proctest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Alive reports whether pid runs (Linux /proc); a zombie has ended.
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The command name may hold spaces and parentheses: the state follows
	// the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// Marked lists the running processes whose environment holds mark (a
// "NAME=value" entry): a test puts a fresh mark in the environment of what
// it starts, and finds everything that descends from it at any depth,
// wherever it was reparented to.
func Marked(mark string) []int {
	des, _ := os.ReadDir("/proc")
	var pids []int
	for _, de := range des {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", de.Name(), "environ"))
		if err == nil && slices.Contains(strings.Split(string(env), "\x00"), mark) && Alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
