package gitops

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

func TestBranchesCheckoutDelete(t *testing.T) {
	f := newFixture(t)
	bare, clone := f.remote()
	f.gitIn(clone, "push", "-q", "origin", "main:shared") // a branch only the remote has
	f.gitIn(clone, "fetch", "-q")
	r := f.open(clone)

	co, err := r.Checkout(ctx(t), rpc.GitCheckoutParams{Branch: "topic", Create: true})
	if err != nil || !co.Success || co.Branch != "topic" {
		t.Fatalf("create topic = %+v, %v", co, err)
	}
	co, err = r.Checkout(ctx(t), rpc.GitCheckoutParams{Branch: "topic", Create: true})
	if err != nil || co.Success || !strings.Contains(co.Error, "already exists") {
		t.Errorf("create topic again = %+v, %v", co, err)
	}
	co, err = r.Checkout(ctx(t), rpc.GitCheckoutParams{Branch: "origin/shared"})
	if err != nil || !co.Success || co.Branch != "shared" {
		t.Fatalf("checkout origin/shared = %+v, %v", co, err)
	}
	br, err := r.Branches(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range br.Branches {
		got = append(got, b.Name+map[bool]string{true: "*", false: ""}[b.IsCurrent]+map[bool]string{true: "(r)", false: ""}[b.IsRemote]+"→"+b.Upstream)
	}
	want := "main→origin/main,shared*→origin/shared,topic→,origin/main(r)→,origin/shared(r)→"
	if strings.Join(got, ",") != want || br.Current != "shared" || br.Upstream != "origin/shared" {
		t.Errorf("branches = %s (current %s, upstream %s), want %s", strings.Join(got, ","), br.Current, br.Upstream, want)
	}

	// Delete shared here and on the remote, from main.
	if co, err := r.Checkout(ctx(t), rpc.GitCheckoutParams{Branch: "main"}); err != nil || !co.Success {
		t.Fatalf("checkout main = %+v, %v", co, err)
	}
	del, err := r.BranchDelete(ctx(t), rpc.GitBranchDeleteParams{Branch: "shared", DeleteRemote: true})
	if err != nil || !del.Success || !del.DeletedRemote {
		t.Fatalf("delete shared = %+v, %v", del, err)
	}
	if out, _ := exec.Command("git", "-C", bare, "branch", "--list", "shared").Output(); len(out) != 0 {
		t.Errorf("the remote still has shared: %s", out)
	}
	// An unmerged branch needs force.
	f.gitIn(clone, "switch", "-q", "topic")
	write(t, clone, "t.txt", "t\n")
	f.gitIn(clone, "add", ".")
	f.gitIn(clone, "commit", "-q", "-m", "topic work")
	f.gitIn(clone, "switch", "-q", "main")
	del, err = r.BranchDelete(ctx(t), rpc.GitBranchDeleteParams{Branch: "topic"})
	if err != nil || del.Success || !strings.Contains(del.Error, "not fully merged") {
		t.Errorf("delete unmerged = %+v, %v", del, err)
	}
	del, err = r.BranchDelete(ctx(t), rpc.GitBranchDeleteParams{Branch: "topic", Force: true})
	if err != nil || !del.Success || del.DeletedRemote {
		t.Errorf("force delete = %+v, %v", del, err)
	}
}

// History with a merge: every commit complete, the merge marked, refs read,
// and the graph in two lanes.
func TestLogGraph(t *testing.T) {
	f := newFixture(t)
	_, dir := f.remote()
	f.gitIn(dir, "switch", "-q", "-c", "side")
	write(t, dir, "s.txt", "side\n")
	f.gitIn(dir, "add", ".")
	f.gitIn(dir, "commit", "-q", "-m", "on side")
	f.gitIn(dir, "switch", "-q", "main")
	write(t, dir, "m.txt", "main\n")
	f.gitIn(dir, "add", ".")
	f.gitIn(dir, "commit", "-q", "-m", "on main")
	f.gitIn(dir, "merge", "-q", "--no-edit", "side")
	f.gitIn(dir, "tag", "v1")
	r := f.open(dir)

	res, err := r.Log(ctx(t), rpc.GitLogParams{Limit: 50, Graph: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalCount != 4 || len(res.Commits) != 4 || res.HasMore || res.MaxColumns != 2 {
		t.Fatalf("total %d, %d commits, more %v, columns %d", res.TotalCount, len(res.Commits), res.HasMore, res.MaxColumns)
	}
	merge := res.Commits[0]
	if !merge.IsMerge || len(merge.ParentSHAs) != 2 || merge.Author != "Test User" || merge.AuthorEmail != "test@example.com" {
		t.Errorf("merge = %+v", merge)
	}
	refs, _ := json.Marshal(merge.Refs)
	if string(refs) != `[{"name":"HEAD","type":"head"},{"name":"main","type":"branch"},{"name":"v1","type":"tag"}]` {
		t.Errorf("refs = %s", refs)
	}
	g := merge.GraphPosition
	if g == nil || g.Column != 0 || len(g.Lines) != 2 || g.Lines[1] != (rpc.GitGraphLine{FromColumn: 0, ToColumn: 1, Type: "merge"}) {
		t.Errorf("merge's graph = %+v", g)
	}
	root := res.Commits[3]
	if root.Subject != "first" || len(root.ParentSHAs) != 0 || root.GraphPosition.Column != 0 {
		t.Errorf("root = %+v", root)
	}
	var joined bool
	for _, l := range root.GraphPosition.Lines {
		joined = joined || (l.Type == "branch" && l.FromColumn == 1 && l.ToColumn == 0)
	}
	if !joined {
		t.Errorf("the side lane does not join the root: %+v", root.GraphPosition.Lines)
	}

	// Paging: the second page's lanes are laid out from the top.
	page, err := r.Log(ctx(t), rpc.GitLogParams{Limit: 2, Offset: 2, Graph: true})
	if err != nil || len(page.Commits) != 2 || page.HasMore || page.Commits[1].SHA != root.SHA ||
		page.Commits[0].GraphPosition.Column != res.Commits[2].GraphPosition.Column {
		t.Errorf("page 2 = %+v, %v", page, err)
	}
	flat, err := r.Log(ctx(t), rpc.GitLogParams{Limit: 1, Offset: 1})
	if err != nil || len(flat.Commits) != 1 || flat.Commits[0].GraphPosition != nil || !flat.HasMore {
		t.Errorf("without graph = %+v, %v", flat, err)
	}
	if _, err := r.Log(ctx(t), rpc.GitLogParams{Limit: -1}); rpcCode(err) != rpc.CodeInvalidParams {
		t.Errorf("limit -1: %v", err)
	}
}

// A commit git can barely read (a broken date, bytes that are not UTF-8)
// still comes out complete: the app fails the whole page on one that is not.
func TestLogBadCommit(t *testing.T) {
	f := newFixture(t)
	dir := f.repo()
	tree := f.gitIn(dir, "rev-parse", "HEAD^{tree}")
	parent := f.gitIn(dir, "rev-parse", "HEAD")
	raw := "tree " + tree + "\nparent " + parent + "\nauthor \xff\xfe <> notadate\ncommitter x <x@y> 1 +0000\n\nsubject \xff bytes\n"
	obj := filepath.Join(t.TempDir(), "commit")
	if err := os.WriteFile(obj, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	sha := f.gitIn(dir, "hash-object", "-t", "commit", "-w", "--literally", obj)
	f.gitIn(dir, "update-ref", "refs/heads/main", sha)
	res, err := f.open(dir).Log(ctx(t), rpc.GitLogParams{Graph: true})
	if err != nil || len(res.Commits) != 2 {
		t.Fatalf("log = %+v, %v", res, err)
	}
	b, _ := json.Marshal(res.Commits[0])
	t.Logf("%s", b)
	var strict struct {
		SHA, Subject, Author, Date string
		AuthorEmail                string `json:"author_email"`
	}
	if err := json.Unmarshal(b, &strict); err != nil || strict.SHA != sha || strict.Date == "" || strict.Author == "" ||
		!strings.Contains(strict.Subject, "subject") || !json.Valid(b) {
		t.Errorf("bad commit = %s, %v", b, err)
	}
}
