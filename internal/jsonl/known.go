package jsonl

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The readers below decode one value at b[at] as encoding/json decodes it
// into a field of its type, for a Schema's fields (and a FuncKey's reader):
// a value of another type, or one only encoding/json reads rightly, makes
// them refuse (-1), and the Schema's caller decodes the line with
// encoding/json instead.

// String reads the string at b[at] into *dst (see Unquote).
func String(b []byte, at int, dst *string) int {
	in, e := quoted(b, at)
	if e < 0 {
		return -1
	}
	s, ok := Unquote(in)
	if !ok {
		return -1
	}
	*dst = s
	return e
}

// NewString is String into a new string (a *string field, which tells an
// absent member from an empty one).
func NewString(b []byte, at int, dst **string) int { return newOf(String)(b, at, dst) }

// Bytes reads the string at b[at] as String does, into *dst: a part of b
// when the string holds no escape (nothing copied), else a new slice. For a
// reader that keeps few of the strings it reads, or only compares them: a
// string allocated for each was most of what a Gemini replay allocated.
func Bytes(b []byte, at int, dst *[]byte) int {
	in, e := quoted(b, at)
	s, ok := unquote(in)
	if e < 0 || !ok {
		return -1
	}
	*dst = s
	return e
}

// quoted is the content of the string at b[at], as written between its
// quotes, and where the string ends (-1: not a whole string).
func quoted(b []byte, at int) ([]byte, int) {
	if at >= len(b) || b[at] != '"' {
		return nil, -1
	}
	e := stringEnd(b, at+1)
	if e < 0 {
		return nil, -1
	}
	return b[at+1 : e], e + 1
}

// Raw copies the value at b[at], which must be valid JSON and not null,
// into *dst: a value passed on as it is written (a tool's input) must
// encode again.
func Raw(b []byte, at int, dst *json.RawMessage) int {
	e := RawUnchecked(b, at, dst)
	if e > 0 && !json.Valid(*dst) {
		return -1
	}
	return e
}

// RawUnchecked is Raw without validating the value: for one its caller
// reads further, and so checks, before it uses it.
func RawUnchecked(b []byte, at int, dst *json.RawMessage) int {
	e := valueEnd(b, at)
	if e < 0 || string(b[at:e]) == "null" {
		return -1
	}
	*dst = append([]byte(nil), b[at:e]...)
	return e
}

// Int reads the integer at b[at] into *dst as encoding/json reads it into
// an int64; a fraction, an exponent or an overflow is refused.
func Int(b []byte, at int, dst *int64) int {
	e := valueEnd(b, at)
	if e < 0 {
		return -1
	}
	v, err := strconv.ParseInt(string(b[at:e]), 10, 64)
	if err != nil {
		return -1
	}
	*dst = v
	return e
}

// Bool reads the literal true or false at b[at] into *dst.
func Bool(b []byte, at int, dst *bool) int {
	e := valueEnd(b, at)
	if e < 0 || (string(b[at:e]) != "true" && string(b[at:e]) != "false") {
		return -1
	}
	*dst = string(b[at:e]) == "true"
	return e
}

// Array calls fn with the offset of each element of the array at b[at];
// fn returns where the element ends, or -1 to refuse it. empty, unless
// nil, is called first (encoding/json makes an empty, not nil, slice of
// []). It returns where the array ends, or -1.
func Array(b []byte, at int, empty func(), fn func(at int) int) int {
	if at >= len(b) || b[at] != '[' {
		return -1
	}
	if empty != nil {
		empty()
	}
	i := skipSpace(b, at+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for i < len(b) {
		e := fn(i)
		if e <= i {
			return -1
		}
		i = skipSpace(b, e)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
	return -1
}

// arrayOf reads an array whose elements read reads, each into a new E
// appended to the slice ([] gives an empty slice, not nil).
func arrayOf[E any](read func(b []byte, at int, dst *E) int) func(b []byte, at int, dst *[]E) int {
	return func(b []byte, at int, p *[]E) int {
		return Array(b, at, func() { *p = []E{} }, func(at int) int {
			var zero E
			*p = append(*p, zero)
			return read(b, at, &(*p)[len(*p)-1])
		})
	}
}

// newOf reads what read reads into a new V.
func newOf[V any](read func(b []byte, at int, dst *V) int) func(b []byte, at int, dst **V) int {
	return func(b []byte, at int, dst **V) int {
		v := new(V)
		*dst = v
		return read(b, at, v)
	}
}

// Whole reports whether end, where a reader of b stopped, is the end of b
// but for spaces.
func Whole(b []byte, end int) bool { return end >= 0 && skipSpace(b, end) == len(b) }

// The readers below leave *dst zero for a value of another type (see
// TextKey).

// Text is a string's content as written between its quotes, borrowed from
// the line (not copied): what TextKey reads.
type Text []byte

// readText reads a string without escapes, its content borrowed from b; a
// string with an escape or bytes that are not UTF-8 is refused (only a
// decoder reads those), any other value leaves *dst nil.
func readText(b []byte, at int, dst *Text) int {
	if b[at] != '"' {
		return valueEnd(b, at)
	}
	in, e := quoted(b, at)
	if e < 0 || bytes.IndexByte(in, '\\') >= 0 || !utf8.Valid(in) {
		return -1
	}
	*dst = in
	return e
}

// readTrue reads a bool that only the literal true sets.
func readTrue(b []byte, at int, dst *bool) int {
	e := valueEnd(b, at)
	if e >= 0 {
		*dst = string(b[at:e]) == "true"
	}
	return e
}

// Borrowed reads any value as written, null included (as encoding/json
// fills a json.RawMessage), borrowed from b rather than copied, and not
// validated.
func Borrowed(b []byte, at int, dst *json.RawMessage) int {
	e := valueEnd(b, at)
	if e >= 0 {
		*dst = b[at:e:e]
	}
	return e
}
