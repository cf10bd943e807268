package rollout

import (
	"errors"

	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// indexVersion names what add gathers, for persisted indexes (see
// history.Format's Version).
const indexVersion = "codex-rollout-4"

// index is what one scan of a rollout learned: where its message lines are
// (the kept Lines) and what List reports.
type index struct {
	lineindex.Index
	id, cwd, prompt string
	tok             tokens // the model calls' usage
	// The line being added, kept here because a line of add's own escaped
	// to the heap (the schema fills it through func values): an
	// allocation a line.
	line Line
}

// add takes one line into the index, reporting whether it is a message.
func (x *index) add(b []byte) bool {
	l := &x.line
	defer func() { *l = Line{} }() // it borrows from b
	exact, err := readLine(x.Shape(), b, l)
	if err != nil {
		return false // not JSON: not a message
	}
	p := &l.Payload
	switch {
	case l.Type == "session_meta" && x.cwd == "" && p.Cwd != "":
		x.id, x.cwd = p.ID, p.Cwd // the first that names a cwd
	case exact && l.Type == "event_msg" && p.Type == "token_count" && p.Info != nil:
		x.tok.count(l.Timestamp, p.Info)
	case x.prompt == "":
		x.prompt = prompt(*l)
	}
	return isMessage(*l)
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

// Size is the memory x takes besides its lines (lineindex.Indexed).
func (x *index) Size() int64 { return int64(len(x.id)+len(x.cwd)+len(x.prompt)) + x.tok.size() }

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
