package presence

import (
	"slices"
	"testing"
)

func TestFocusJoinsAndLeaves(t *testing.T) {
	tr := New()
	if ch := tr.Focus("a", "s1", true); !ch.Joined || !slices.Equal(ch.Viewers, []string{"a"}) || ch.Left != "" {
		t.Errorf("a focuses s1: %+v", ch)
	}
	if ch := tr.Focus("b", "s1", true); !ch.Joined || !slices.Equal(ch.Viewers, []string{"a", "b"}) {
		t.Errorf("b focuses s1: %+v", ch)
	}
	// Again, as the app does after each watch: nothing changes.
	if ch := tr.Focus("b", "s1", true); ch.Joined || ch.Left != "" || len(ch.Viewers) != 2 {
		t.Errorf("b focuses s1 again: %+v", ch)
	}
	if !tr.Present("s1") || !slices.Equal(tr.Viewers("s1"), []string{"a", "b"}) {
		t.Errorf("s1 viewers %v", tr.Viewers("s1"))
	}
	// b moves to s2: leaves s1.
	if ch := tr.Focus("b", "s2", true); !ch.Joined || ch.Left != "s1" || !slices.Equal(ch.Remaining, []string{"a"}) {
		t.Errorf("b moves to s2: %+v", ch)
	}
	// a's page is hidden: it leaves s1, which nobody views now.
	if ch := tr.Focus("a", "s1", false); ch.Left != "s1" || len(ch.Remaining) != 0 || len(ch.Viewers) != 0 {
		t.Errorf("a hidden: %+v", ch)
	}
	if tr.Present("s1") || tr.Viewers("s1") != nil {
		t.Errorf("s1 still viewed: %v", tr.Viewers("s1"))
	}
	// Visible again: a join.
	if ch := tr.Focus("a", "s1", true); !ch.Joined {
		t.Errorf("a visible again: %+v", ch)
	}
	if ch := tr.Leave("b"); ch.Left != "s2" || len(ch.Remaining) != 0 || tr.Present("s2") {
		t.Errorf("b disconnects: %+v", ch)
	}
	if ch := tr.Leave("b"); ch.Left != "" {
		t.Errorf("b twice: %+v", ch)
	}
	if ch := tr.Focus("c", "s9", false); ch.Left != "" || ch.Joined {
		t.Errorf("inactive without a focus: %+v", ch)
	}
}

func TestWithout(t *testing.T) {
	if got := Without([]string{"a", "b", "c"}, "b"); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("got %v", got)
	}
}

// A client that said where it looks is judged by its focus from then on,
// hidden page included, until its connection closes.
func TestReports(t *testing.T) {
	tr := New()
	if tr.Reports("c1") {
		t.Fatal("a client that never focused reports")
	}
	tr.Focus("c1", "s1", true)
	tr.Focus("c1", "s1", false)
	if !tr.Reports("c1") || tr.Present("s1") {
		t.Fatalf("after a hidden page: reports %v, present %v; want true, false", tr.Reports("c1"), tr.Present("s1"))
	}
	tr.Leave("c1")
	if tr.Reports("c1") {
		t.Fatal("a client whose connection closed still reports")
	}
}
