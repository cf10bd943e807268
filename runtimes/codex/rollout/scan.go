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

	sh *shapes // where keys are remembered, or nil
}

// shapes are the keys a scan's classify remembers (see jsonl.Shape): one
// Shape for each level it reads, a line, its payload and a payload's item,
// each walked with its own keys.
type shapes [3]jsonl.Shape

// The levels of shapes.
const (
	lineLevel = iota
	payloadLevel
	itemLevel
)

// at is the Shape of level, or nil for a nil s.
func (s *shapes) at(level int) *jsonl.Shape {
	if s == nil {
		return nil
	}
	return &s[level]
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
//
// The line is gone over once: a payload (and its item) is read where it is
// when the type before it says it will be, as Codex writes them. Measuring
// the payload first and then reading it went over its long strings (a
// command's output, an answer) two or three times, which was most of a
// first read. A payload met before its line's type is read afterwards.
func classify(b []byte) (f facts, ok bool) { return classifyIn(nil, b) }

// Keys classify reads at each level.
var (
	lineKeys    = []string{"type", "payload"}
	payloadKeys = []string{"type", "item"}
	itemKeys    = []string{"type"}
)

// classifyIn is classify with the keys of the lines read before b
// remembered in sh (nil: none), as a scan has them.
func classifyIn(sh *shapes, b []byte) (f facts, ok bool) {
	f.sh = sh
	read := false // the payload was read where it is
	lead := len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
	end := membersAt(sh.at(lineLevel), b, lead, lineKeys, func(k, at int) int {
		if k == 1 && holdsMessages(f.typ) && b[at] == '{' {
			e := f.payloadAt(b, at)
			if e >= 0 {
				f.payload, read = b[at:e], true
			}
			return e
		}
		if k == 0 {
			return strAt(b, at, &f.typ)
		}
		e := jsonl.ValueEnd(b, at)
		if e >= 0 {
			f.payload = b[at:e]
		}
		return e
	})
	if !jsonl.Whole(b, end) {
		return f, false
	}
	if read || !holdsMessages(f.typ) || f.payload == nil || f.payload[0] != '{' {
		return f, true // absent, null or another type: a zero payload
	}
	return f, f.payloadAt(f.payload, 0) == len(f.payload)
}

// holdsMessages reports whether a line of type typ can hold a message: its
// payload is read.
func holdsMessages(typ []byte) bool {
	return string(typ) == "event_msg" || string(typ) == "response_item"
}

// payloadAt reads the facts of the payload object at b[at] (its line's type
// read) and returns where it ends, or -1 when only a decoder can tell.
func (f *facts) payloadAt(b []byte, at int) int {
	var item []byte
	end := membersAt(f.sh.at(payloadLevel), b, at, payloadKeys, func(k, vat int) int {
		if k == 0 {
			return strAt(b, vat, &f.ptyp)
		}
		if string(f.typ) == "event_msg" && string(f.ptyp) == "item_completed" && b[vat] == '{' {
			f.item = true // an object gives a non-nil Item
			return f.itemAt(b, vat)
		}
		e := jsonl.ValueEnd(b, vat)
		if e >= 0 {
			item = b[vat:e]
		}
		return e
	})
	if end < 0 || f.item || string(f.typ) != "event_msg" || string(f.ptyp) != "item_completed" || item == nil {
		return end
	}
	// An item met before the payload's type, or not an object.
	if string(item) == "null" {
		return end
	}
	f.item = true // any other value gives a non-nil Item
	if item[0] == '{' && f.itemAt(item, 0) != len(item) {
		return -1
	}
	return end
}

// itemAt reads the type of the item object at b[at] and returns where it
// ends, or -1 when only a decoder can tell.
func (f *facts) itemAt(b []byte, at int) int {
	return membersAt(f.sh.at(itemLevel), b, at, itemKeys, func(_, tat int) int { return strAt(b, tat, &f.ityp) })
}

// strAt sets *dst to str of the value at b[at] and returns where it ends,
// or -1 when it is cut short or only a decoder can read it.
func strAt(b []byte, at int, dst *[]byte) int {
	e := jsonl.ValueEnd(b, at)
	if e < 0 {
		return -1
	}
	s, good := str(b[at:e])
	if !good {
		return -1
	}
	*dst = s
	return e
}

// membersAt walks the object at b[i] where it is: fn gets the index in
// keys and where the value of each member whose key is one of keys starts,
// and returns where it ends, or -1 when only a decoder can tell. It
// returns where the object ends, or -1: also for a key repeated (the
// decoder merges repeated objects) or one a decoder could take for one of
// keys without its spelling (jsonl.Folds). The keys met are remembered in
// sh, which must be walked with these keys only (nil: none).
func membersAt(sh *jsonl.Shape, b []byte, i int, keys []string, fn func(k, at int) int) int {
	var seen uint
	id := func(key []byte) int {
		for k, name := range keys {
			if string(key) == name {
				return k
			}
		}
		if jsonl.Folds(key, keys) {
			return foldsKey
		}
		return otherKey
	}
	return sh.Object(b, i, id, func(k, at int) int {
		switch {
		case k == otherKey:
			return jsonl.ValueEnd(b, at)
		case k == foldsKey || seen&(1<<k) != 0:
			return -1
		}
		seen |= 1 << k
		return fn(k, at)
	})
}

// The ids membersAt gives keys that are not among those it reads.
const (
	otherKey = -1 // one no decoder takes for them
	foldsKey = -2 // one a decoder may take for one of them (see folds)
)

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
	var s [2][]byte
	end := jsonl.Known(payload, 0, metaKeys, func(k, at int) int { return strAt(payload, at, &s[k]) })
	return string(s[0]), string(s[1]), jsonl.Whole(payload, end)
}

// metaKeys are the keys sessionMeta reads.
var metaKeys = []string{"id", "cwd"}
