package chats

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// sessionIDs lists ws and returns its session ids, newest first.
func sessionIDs(t *testing.T, s *Store, ws string) []string {
	t.Helper()
	got, err := s.List(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range got {
		ids = append(ids, g.SessionID)
	}
	return ids
}

// TestListReadsOnlyHeadersOfOtherProjects: a List of one workspace reads
// no more than the first line of another project's chat file, however big,
// and not even that once it knows the file; appending to the file costs a
// check of its first line, not a replay.
func TestListReadsOnlyHeadersOfOtherProjects(t *testing.T) {
	f := newFixture(t)
	other := t.TempDir()
	const bigID = "0b000000-0000-4000-8000-000000000001"
	big := writeBig(t, f.home, other, bigID, 4<<20)
	s := f.s
	if ids := sessionIDs(t, s, f.ws); len(ids) != 2 {
		t.Fatalf("List = %v, want sessions A and R", ids)
	}
	fi, err := os.Stat(big)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Stats().ScannedBytes; n >= fi.Size() {
		t.Fatalf("List read %d bytes: the other project's %d-byte file was replayed", n, fi.Size())
	}
	heads := s.Stats().HeadBytes
	scans, scanned := s.Stats().FullScans, s.Stats().ScannedBytes
	sessionIDs(t, s, f.ws)
	if s.Stats().HeadBytes != heads {
		t.Fatalf("a List of unchanged files read %d bytes of first lines", s.Stats().HeadBytes-heads)
	}
	appendFile(t, big, `{"id":"late","timestamp":"2026-11-23T01:00:00.000Z","type":"user","content":[{"text":"late"}]}`+"\n")
	sessionIDs(t, s, f.ws)
	if s.Stats().HeadBytes-heads > 16<<10 || s.Stats().FullScans != scans || s.Stats().ScannedBytes != scanned {
		t.Fatalf("later Lists read: %d bytes of first lines, %d replays, %d bytes", s.Stats().HeadBytes-heads, s.Stats().FullScans-scans, s.Stats().ScannedBytes-scanned)
	}
	// The other project's own List does replay it.
	if ids := sessionIDs(t, s, other); len(ids) != 1 || ids[0] != bigID {
		t.Fatalf("List(other) = %v", ids)
	}
}

// TestReplacedFileMovesBetweenProjects: a chat file replaced under the same
// name by one of another project, or rewritten in place with another
// header, leaves the first project's List and joins the other's.
func TestReplacedFileMovesBetweenProjects(t *testing.T) {
	for _, how := range []string{"rename", "rewrite in place"} {
		t.Run(how, func(t *testing.T) {
			f := newFixture(t)
			s := f.s
			other := t.TempDir()
			if ids := sessionIDs(t, s, other); len(ids) != 0 {
				t.Fatalf("List(other) = %v before", ids)
			}
			if ids := sessionIDs(t, s, f.ws); len(ids) != 2 {
				t.Fatalf("List = %v before", ids)
			}
			// reset.jsonl (session R) becomes the other project's.
			p := filepath.Join(filepath.Dir(f.main), "session-2026-11-22T23-00-"+id8(sessionR)+".jsonl")
			tmp := install(t, t.TempDir(), "x", "reset.jsonl", "2026-11-22T23-00", sessionR, other)
			b, err := os.ReadFile(tmp)
			if err != nil {
				t.Fatal(err)
			}
			switch how {
			case "rename":
				if err := os.Rename(tmp, p); err != nil {
					t.Fatal(err)
				}
			default:
				// The same size, so that only the first line tells.
				if err := os.WriteFile(p, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// The project that gains it listed first: what it knew of the file
			// said it was another's.
			if ids := sessionIDs(t, s, other); len(ids) != 1 || ids[0] != sessionR {
				t.Fatalf("List(other) = %v after, want session R", ids)
			}
			if ids := sessionIDs(t, s, f.ws); len(ids) != 1 || ids[0] != sessionA {
				t.Fatalf("List = %v after, want session A only", ids)
			}
		})
	}
}
