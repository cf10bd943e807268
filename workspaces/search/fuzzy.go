package search

import "strings"

// The fuzzy match: every character of the query, in order, somewhere in
// the path (case-insensitive for ASCII), as editors' "go to file" do. The
// score rewards what a person typing a few letters of a file means: the
// letters in the file's name rather than its directories, at the start of
// a word (after / _ - . or a space, or a lower-to-upper case step), and in
// runs; and it prefers short paths. Greedy, not optimal: the match is
// tried in the name first, then in the whole path from the left.

// Score weights.
const (
	scoreChar        = 1
	scoreWordStart   = 8
	scoreRun         = 5
	scoreInName      = 20
	scoreNamePrefix  = 25
	scoreExactName   = 60
	pathLengthDivide = 16 // one point lost per this many bytes of path
)

// charMask is a cheap filter: a bit per letter, digit and common
// punctuation a string holds. A path lacking one of the query's bits
// cannot match.
func charMask(lower string) uint64 {
	var m uint64
	for i := 0; i < len(lower); i++ {
		m |= charBit(lower[i])
	}
	return m
}

func charBit(c byte) uint64 {
	switch {
	case c >= 'a' && c <= 'z':
		return 1 << (c - 'a')
	case c >= '0' && c <= '9':
		return 1 << (26 + c - '0')
	case c == '.':
		return 1 << 36
	case c == '_':
		return 1 << 37
	case c == '-':
		return 1 << 38
	case c == '/':
		return 1 << 39
	case c >= 0x80:
		return 1 << 40
	}
	return 1 << 41
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// score matches the lower-case query q against path (lower is its lower
// case, name the offset of its base name); ok is false when it does not
// match.
func score(q, path, lower string, name int) (s int, ok bool) {
	if len(q) == 0 {
		return 0, false
	}
	if lower[name:] == q {
		return scoreExactName*2 - len(path)/pathLengthDivide, true
	}
	if s, ok = subsequence(q, path, lower, name); ok {
		s += scoreInName
		if strings.HasPrefix(lower[name:], q) {
			s += scoreNamePrefix
		}
	} else if s, ok = subsequence(q, path, lower, 0); !ok {
		return 0, false
	}
	return s - len(path)/pathLengthDivide, true
}

// subsequence scores q matched greedily in lower from byte from.
func subsequence(q, path, lower string, from int) (int, bool) {
	s, qi, prev := 0, 0, -2
	for i := from; i < len(lower) && qi < len(q); i++ {
		if lower[i] != q[qi] {
			continue
		}
		s += scoreChar
		if wordStart(path, i) {
			s += scoreWordStart
		}
		if i == prev+1 {
			s += scoreRun
		}
		prev = i
		qi++
	}
	return s, qi == len(q)
}

// wordStart reports whether byte i of path begins a word.
func wordStart(path string, i int) bool {
	if i == 0 {
		return true
	}
	switch p := path[i-1]; p {
	case '/', '_', '-', '.', ' ':
		return true
	default:
		c := path[i]
		return p >= 'a' && p <= 'z' && c >= 'A' && c <= 'Z'
	}
}
