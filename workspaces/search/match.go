package search

import (
	"cmp"
	"slices"
	"strings"
)

// match is one matching entry of a snapshot.
type match struct {
	i     int
	score int
}

// better orders matches best first: higher score, then shorter path, then
// by path.
func (s *snapshot) better(a, b match) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	pa, pb := s.entries[a.i].path, s.entries[b.i].path
	if c := cmp.Compare(len(pa), len(pb)); c != 0 {
		return c
	}
	return strings.Compare(pa, pb)
}

// match scans every entry for the lower-case query q and returns the best
// keep of them, best first, and how many matched in all. Only the best
// keep are held (sorted, inserted into), so a one-letter query matching
// every path costs no sort of them all.
func (s *snapshot) match(q string, keep int, skipBinary bool) ([]match, int) {
	need := charMask(q)
	top := make([]match, 0, keep+1)
	total := 0
	for i := range s.entries {
		e := &s.entries[i]
		if e.mask&need != need || (skipBinary && e.binary) {
			continue
		}
		sc, ok := score(q, e.path, e.lower, int(e.name))
		if !ok {
			continue
		}
		total++
		m := match{i, sc}
		if len(top) == keep && s.better(m, top[keep-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, m, s.better)
		top = slices.Insert(top, at, m)
		if len(top) > keep {
			top = top[:keep]
		}
	}
	return top, total
}
