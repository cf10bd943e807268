package rollout

import (
	"bytes"
	"unicode/utf8"

	"github.com/cdevd/cdevd/internal/jsonl"
)

// facts is what an index needs of one line, read by classify without
// decoding it: 76% of a first read of a big rollout went to encoding/json
// in ParseLine (pprof of BenchmarkFirstPage), although a line's kind is
// three short strings and the bulk of a line is its payload's text.
type facts struct {
	typ  []byte // "type"
	ptyp []byte // "payload"."type", read only for the types that hold messages
	ityp []byte // "payload"."item"."type", read only for item_completed
	item bool   // "payload"."item" is there and not null
	// payload is "payload"'s value, or nil.
	payload []byte
}

// isMessage is isMessage(ParseLine(b)) for a line classify understood.
func (f *facts) isMessage() bool {
	switch string(f.typ) {
	case "event_msg":
		if string(f.ptyp) != "item_completed" || !f.item {
			return false
		}
		switch string(f.ityp) {
		case "UserMessage", "AgentMessage", "CommandExecution", "FileChange":
			return true
		}
	case "response_item":
		return string(f.ptyp) == "reasoning"
	}
	return false
}

// classify reads the facts of line b. ok is false when only a real decoder
// can say what ParseLine would make of b: an object of the wrong shape at a
// level classify reads, a key that encoding/json would match to one it
// reads without spelling it exactly (it folds case and decodes escapes), a
// key repeated (the decoder merges repeated objects), or a string with
// escapes. For valid JSON, an ok answer is what ParseLine and isMessage say
// (FuzzClassify); a line invalid inside a value classify skips can still be
// ok.
func classify(b []byte) (f facts, ok bool) {
	var payload []byte
	ok = members(b, []string{"type", "payload"}, func(k int, val []byte) (good bool) {
		if k == 0 {
			f.typ, good = str(val)
			return good
		}
		payload = val
		return true
	})
	if !ok {
		return f, false
	}
	f.payload = payload
	switch string(f.typ) {
	case "event_msg", "response_item":
	default:
		return f, true
	}
	if payload == nil || payload[0] != '{' {
		return f, true // absent, null or another type: a zero payload
	}
	var item []byte
	ok = members(payload, []string{"type", "item"}, func(k int, val []byte) (good bool) {
		if k == 0 {
			f.ptyp, good = str(val)
			return good
		}
		item = val
		return true
	})
	if !ok || string(f.typ) != "event_msg" || string(f.ptyp) != "item_completed" || item == nil {
		return f, ok
	}
	if string(item) == "null" {
		return f, true
	}
	f.item = true // any other value gives a non-nil Item
	if item[0] != '{' {
		return f, true
	}
	ok = members(item, []string{"type"}, func(_ int, val []byte) (good bool) {
		f.ityp, good = str(val)
		return good
	})
	return f, ok
}

// members calls fn with the index in keys and the value of each member of
// the object obj whose key is one of keys, as encoding/json would match it
// to a struct field. It is false when obj is not an object of valid shape,
// a key is repeated, a key could match one of keys without spelling it
// exactly, or fn is false.
func members(obj []byte, keys []string, fn func(k int, val []byte) bool) bool {
	var seen uint
	ok := true
	shape := jsonl.Members(obj, func(key, val []byte) {
		if !ok {
			return
		}
		k := slicesIndex(keys, key)
		if k < 0 {
			if folds(key, keys) {
				ok = false
			}
			return
		}
		if seen&(1<<k) != 0 {
			ok = false
			return
		}
		seen |= 1 << k
		ok = fn(k, val)
	})
	return shape && ok
}

func slicesIndex(keys []string, key []byte) int {
	for i, k := range keys {
		if string(key) == k {
			return i
		}
	}
	return -1
}

// folds reports whether encoding/json could take key, spelled otherwise
// than all of keys, for one of them: an escape, a byte that is not ASCII
// (it folds some runes onto ASCII letters), or a case-insensitive match.
func folds(key []byte, keys []string) bool {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return true
		}
	}
	for _, k := range keys {
		if len(key) == len(k) && bytes.EqualFold(key, []byte(k)) {
			return true
		}
	}
	return false
}

// str is the content of the JSON string val, or nil for any other value
// (which a string field is left empty by); ok is false for a string that
// only a decoder can read (escapes, or bytes that are not UTF-8, which it
// replaces).
func str(val []byte) (s []byte, ok bool) {
	if len(val) < 2 || val[0] != '"' {
		return nil, true
	}
	s = val[1 : len(val)-1]
	if bytes.IndexByte(s, '\\') >= 0 || !utf8.Valid(s) {
		return nil, false
	}
	return s, true
}

// sessionMeta reads the thread id and cwd of a session_meta line's payload
// as ParseLine would: the 22 KB of instructions a real one holds need not be
// decoded. ok is false when only a decoder can tell (see classify).
func sessionMeta(payload []byte) (id, cwd string, ok bool) {
	if payload == nil || payload[0] != '{' {
		return "", "", true // a zero payload
	}
	ok = members(payload, []string{"id", "cwd"}, func(k int, val []byte) bool {
		s, good := str(val)
		if k == 0 {
			id = string(s)
		} else {
			cwd = string(s)
		}
		return good
	})
	return id, cwd, ok
}
