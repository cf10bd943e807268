package transcript

import (
	"errors"

	"github.com/cdevd/cdevd/runtimes/history"
	"github.com/cdevd/cdevd/runtimes/history/lineindex"
)

// indexVersion names what add gathers, for persisted indexes: change it
// whenever add, isMessage or the facts saved change, so that indexes saved
// by an older cdevd are scanned again rather than trusted.
const indexVersion = "claude-transcript-1"

// AppendFacts appends what x gathered besides its lines (lineindex.Indexed).
func (x *index) AppendFacts(b []byte) []byte {
	for _, s := range []string{x.customTitle, x.aiTitle, x.summary, x.prompt, x.branch} {
		b = lineindex.AppendString(b, s)
	}
	var flags byte
	for i, f := range []bool{x.hasCustom, x.hasAI, x.hasSummary} {
		if f {
			flags |= 1 << i
		}
	}
	return append(b, flags)
}

// ReadFacts reads what AppendFacts wrote.
func (x *index) ReadFacts(b []byte) error {
	r := lineindex.FactReader{B: b}
	for _, s := range []*string{&x.customTitle, &x.aiTitle, &x.summary, &x.prompt, &x.branch} {
		*s = r.String()
	}
	flags := r.Byte()
	if r.Bad || len(r.B) != 0 {
		return errors.New("bad transcript facts")
	}
	x.hasCustom, x.hasAI, x.hasSummary = flags&1 != 0, flags&2 != 0, flags&4 != 0
	return nil
}

// index is what one scan of a transcript learned: where its message lines
// are (the kept Lines) and what List reports.
type index struct {
	lineindex.Index

	customTitle, aiTitle, summary, prompt, branch string
	// Whether a line set each title (to "" too): what Merge needs.
	hasCustom, hasAI, hasSummary bool

	// The line being added (see add).
	line Line

	// The piece of a full scan x indexes, while it does (lineindex.Indexed):
	// only the first prompt of the earliest piece that has one is kept,
	// and looking for one decodes every user message until found (most of
	// a long agentic session's are tool results, not prompts).
	piece *lineindex.Piece
}

// SetPiece tells x which piece of a full scan it indexes (lineindex.Indexed).
func (x *index) SetPiece(p *lineindex.Piece) { x.piece = p }

// Merge takes in the index of the part of the file that follows x's (see
// lineindex.Indexed): later titles and branch win, the first prompt stays.
func (x *index) Merge(y *index) {
	if y.hasCustom {
		x.customTitle, x.hasCustom = y.customTitle, true
	}
	if y.hasAI {
		x.aiTitle, x.hasAI = y.aiTitle, true
	}
	if y.hasSummary {
		x.summary, x.hasSummary = y.summary, true
	}
	if x.prompt == "" {
		x.prompt = y.prompt
	}
	if y.branch != "" {
		x.branch = y.branch
	}
}

// add takes one line into the index, reporting whether it is a message.
func (x *index) add(b []byte) bool {
	// Read into the index's own Line: a line's own escaped to the heap
	// (the schema fills it through func values), an allocation a line.
	l := &x.line
	if read(lineSchema, x.Shape(), b, l) != nil {
		return false // a torn or foreign line: not a message
	}
	if len(l.GitBranch) > 0 && !is(l.GitBranch, x.branch) {
		if branch := str(l.GitBranch); branch != "" {
			x.branch = branch
		}
	}
	// The latest title of each kind wins: they are re-appended when renamed.
	switch {
	case is(l.Type, "custom-title"):
		x.customTitle, x.hasCustom = str(l.CustomTitle), true
	case is(l.Type, "ai-title"):
		x.aiTitle, x.hasAI = str(l.AITitle), true
	case is(l.Type, "summary"):
		x.summary, x.hasSummary = str(l.Summary), true
	}
	if x.prompt == "" && !x.piece.FoundBefore() {
		if x.prompt = prompt(*l); x.prompt != "" {
			x.piece.Found()
		}
	}
	msg := isMessage(*l)
	*l = Line{} // it borrows from b
	return msg
}

// title is the session's summary: a title the user or the CLI gave it, else
// the first prompt, cut to about 100 characters.
func (x *index) title() string {
	for _, t := range []string{x.customTitle, x.aiTitle, x.summary, x.prompt} {
		if t != "" {
			return history.Shorten(t, 100)
		}
	}
	return ""
}
