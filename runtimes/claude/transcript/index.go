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

	// The facts of the line being added (see add).
	line facts
}

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

// Expect and Finish do nothing (lineindex.Indexed): x sizes nothing ahead
// and puts nothing off. Size is the memory x takes besides its lines.
func (x *index) Expect(part, total float64) {}
func (x *index) Finish()                    {}
func (x *index) Size() int64 {
	return int64(len(x.customTitle) + len(x.aiTitle) + len(x.summary) + len(x.prompt) + len(x.branch))
}

// add takes one line into the index, reporting whether it is a message.
// Lines are classified without decoding them; only titles, a first prompt
// still to find, and lines classify cannot vouch for are decoded.
func (x *index) add(b []byte) bool {
	// Read into the index's own facts: a line's own escaped to the heap
	// (the schema fills it through func values), an allocation a line.
	f := &x.line
	ok := factSchema.ReadShaped(x.Shape(), b, f)
	t, msg, branch := string(f.typ), f.isMessage(), f.branch
	*f = facts{} // it borrows from b
	if ok {
		wantsDecode := t == "custom-title" || t == "ai-title" || t == "summary" ||
			(x.prompt == "" && msg && t == "user" && !x.FoundBefore())
		if !wantsDecode {
			if len(branch) > 0 && string(branch) != x.branch {
				x.branch = string(branch)
			}
			return msg
		}
	}
	return x.addDecoded(b)
}

// addDecoded is add by way of ParseLine.
func (x *index) addDecoded(b []byte) bool {
	l, err := ParseLine(b)
	if err != nil {
		return false // a torn or foreign line: not a message
	}
	if l.GitBranch != "" {
		x.branch = l.GitBranch
	}
	// The latest title of each kind wins: they are re-appended when renamed.
	switch l.Type {
	case "custom-title":
		x.customTitle, x.hasCustom = l.CustomTitle, true
	case "ai-title":
		x.aiTitle, x.hasAI = l.AITitle, true
	case "summary":
		x.summary, x.hasSummary = l.Summary, true
	}
	// Only the earliest part's first prompt is kept; looking decodes every
	// user message (most of a long agentic session's are tool results).
	if x.prompt == "" && !x.FoundBefore() {
		if x.prompt = prompt(l); x.prompt != "" {
			x.Found()
		}
	}
	return isMessage(l)
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
