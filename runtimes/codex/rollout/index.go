package rollout

import (
	"errors"

	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// indexVersion names what add gathers, for persisted indexes: change it
// whenever add, isMessage or the facts saved change, so that indexes saved
// by an older cdevd are scanned again rather than trusted.
const indexVersion = "codex-rollout-3"

// index is what one scan of a rollout learned: where its message lines are
// (the kept Lines) and what List reports.
type index struct {
	lineindex.Index
	id, cwd, prompt string
	tok             tokens // the model calls' usage
	// The facts of the line being added (see add).
	line facts
}

// add takes one line into the index, reporting whether it is a message.
// Lines are classified without decoding them, a token_count's usage
// included; only the first session_meta and prompt, and lines classify
// cannot vouch for, are decoded.
func (x *index) add(b []byte) bool {
	// Read into the index's own facts: a line's own escaped to the heap
	// (the schema fills it through func values), an allocation a line.
	f := &x.line
	defer func() { *f = facts{} }() // it borrows from b
	switch ok := factSchema.ReadShaped(x.Shape(), b, f); {
	case !ok:
		x.tok.addDecoded(b)
	case x.cwd == "" && string(f.typ) == "session_meta":
	case x.prompt == "" && string(f.ityp) == "UserMessage" && f.isMessage():
	default:
		if f.counted && string(f.typ) == "event_msg" && string(f.ptyp) == "token_count" {
			x.tok.count(string(f.ts), &f.info)
		}
		return f.isMessage()
	}
	l, err := pageLine(b)
	if err != nil {
		return false // not JSON: not a message
	}
	if l.Type == "session_meta" && x.cwd == "" && l.Payload.Cwd != "" {
		x.id, x.cwd = l.Payload.ID, l.Payload.Cwd // the first that names a cwd
	}
	if x.prompt == "" {
		x.prompt = prompt(l)
	}
	return isMessage(l)
}

// Merge takes in the index of the part of the file that follows x's (see
// lineindex.Indexed): the first session_meta and the first prompt stay.
func (x *index) Merge(y *index) {
	if x.cwd == "" {
		x.id, x.cwd = y.id, y.cwd
	}
	if x.prompt == "" {
		x.prompt = y.prompt
	}
	x.tok = append(x.tok, y.tok...)
}

// Expect and Finish do nothing (lineindex.Indexed): x sizes nothing ahead
// and puts nothing off. Size is the memory x takes besides its lines.
func (x *index) Expect(part, total float64) {}
func (x *index) Finish()                    {}
func (x *index) Size() int64                { return int64(len(x.id)+len(x.cwd)+len(x.prompt)) + x.tok.size() }

// AppendFacts appends what x gathered besides its lines (lineindex.Indexed).
func (x *index) AppendFacts(b []byte) []byte {
	for _, s := range []string{x.id, x.cwd, x.prompt} {
		b = lineindex.AppendString(b, s)
	}
	return x.tok.appendTo(b)
}

// ReadFacts reads what AppendFacts wrote.
func (x *index) ReadFacts(b []byte) error {
	r := lineindex.FactReader{B: b}
	for _, s := range []*string{&x.id, &x.cwd, &x.prompt} {
		*s = r.String()
	}
	x.tok.readFrom(&r)
	if r.Bad || len(r.B) != 0 {
		return errors.New("bad rollout facts")
	}
	return nil
}
