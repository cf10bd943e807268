package transcript

import (
	"bytes"
	"unicode/utf8"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// facts is what an index needs of one line, read by classify without
// decoding it: 97% of a first index build went to encoding/json (pprof of
// BenchmarkIndexBuild), although only a handful of top-level members
// matter and the bulk of a line is the message it carries.
type facts struct {
	typ     []byte // "type", when a string without escapes
	meta    bool   // "isMeta" is true
	side    bool   // "isSidechain" is true
	message bool   // "message" is there and not null
	branch  []byte // "gitBranch", when a string without escapes
}

// isMessage is isMessage(ParseLine(b)) for a line classify understood.
func (f *facts) isMessage() bool {
	return (string(f.typ) == "user" || string(f.typ) == "assistant") && !f.meta && !f.side && f.message
}

// The top-level keys classify reads, and the bit of each in facts' seen set.
var factKeys = [...]string{"type", "isMeta", "isSidechain", "message", "gitBranch"}

// classify reads the facts of line b. ok is false when only a real decoder
// can say what ParseLine would make of b: not an object of the right shape,
// a key that encoding/json would match to one of factKeys without spelling
// it exactly (it folds case, and decodes escapes), a fact repeated, or a
// string fact with escapes. For valid JSON, an ok answer is exactly what
// ParseLine and isMessage say; FuzzClassify holds it to that.
func classify(b []byte) (f facts, ok bool) { return classifyIn(nil, b) }

// classifyIn is classify with the keys of the lines read before b
// remembered in sh (nil: none), as a scan has them.
func classifyIn(sh *jsonl.Shape, b []byte) (f facts, ok bool) {
	var seen uint
	ok = true // until a member says otherwise
	end := sh.Object(b, skipSpace(b), factID, func(k, at int) int {
		e := jsonl.ValueEnd(b, at)
		if e < 0 || k == notFact {
			return e
		}
		if k == foldsToFactKey || seen&(1<<k) != 0 {
			ok = false
			return e
		}
		seen |= 1 << k
		val := b[at:e]
		switch k {
		case 0, 4: // type, gitBranch: a string; any other value leaves it ""
			if len(val) < 2 || val[0] != '"' {
				return e
			}
			s := val[1 : len(val)-1]
			if bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) { // decoded otherwise
				ok = false
				return e
			}
			if k == 0 {
				f.typ = s
			} else {
				f.branch = s
			}
		case 1:
			f.meta = string(val) == "true"
		case 2:
			f.side = string(val) == "true"
		case 3:
			f.message = string(val) != "null"
		}
		return e
	})
	return f, ok && jsonl.Whole(b, end)
}

// The ids factID gives keys that are not in factKeys.
const (
	notFact        = -1 // a key no decoder takes for a fact
	foldsToFactKey = -2 // see foldsToFact
)

// factID is the index of key in factKeys, notFact, or foldsToFactKey.
func factID(key []byte) int {
	if k := factKey(key); k >= 0 {
		return k
	}
	if foldsToFact(key) {
		return foldsToFactKey
	}
	return notFact
}

// skipSpace is the index of b's first byte that is not JSON space.
func skipSpace(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// factKey is the index of key in factKeys, or -1: by length first, since
// every line has a dozen other keys.
func factKey(key []byte) int {
	switch len(key) {
	case 4:
		if string(key) == "type" {
			return 0
		}
	case 6:
		if string(key) == "isMeta" {
			return 1
		}
	case 11:
		if string(key) == "isSidechain" {
			return 2
		}
	case 7:
		if string(key) == "message" {
			return 3
		}
	case 9:
		if string(key) == "gitBranch" {
			return 4
		}
	}
	return -1
}

// foldsToFact reports whether encoding/json could take key, which is not
// one of factKeys as spelled, for one of them: an escape, a byte that is not
// ASCII (it folds some runes onto ASCII letters), or a case-insensitive match.
func foldsToFact(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return true
		}
	}
	switch len(key) {
	case 4, 6, 7, 9, 11: // the lengths of factKeys
		for _, fk := range factKeys {
			if len(key) == len(fk) && bytes.EqualFold(key, []byte(fk)) {
				return true
			}
		}
	}
	return false
}
