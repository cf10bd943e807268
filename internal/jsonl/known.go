package jsonl

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The readers below decode one value at b[at] as encoding/json decodes it
// into a field of its type, for a Schema's fields (and a FuncKey's reader):
// a value of another type, or one only encoding/json reads rightly, makes
// them refuse (-1), and the Schema's caller decodes the line with
// encoding/json instead.

// String reads the string at b[at] into *dst (see Unquote).
func String(b []byte, at int, dst *string) int {
	if at >= len(b) || b[at] != '"' {
		return -1
	}
	e := stringEnd(b, at+1)
	if e < 0 {
		return -1
	}
	s, ok := Unquote(b[at+1 : e])
	if !ok {
		return -1
	}
	*dst = s
	return e + 1
}

// Bytes reads the string at b[at] as String does, into *dst: a part of b
// when the string holds no escape (nothing copied), else a new slice. For a
// reader that keeps few of the strings it reads, or only compares them: a
// string allocated for each was most of what a Gemini replay allocated.
func Bytes(b []byte, at int, dst *[]byte) int {
	if at >= len(b) || b[at] != '"' {
		return -1
	}
	e := stringEnd(b, at+1)
	if e < 0 {
		return -1
	}
	in := b[at+1 : e]
	if bytes.IndexByte(in, '\\') >= 0 {
		s, ok := Unquote(in)
		if !ok {
			return -1
		}
		in = []byte(s)
	} else if !plain(in) {
		return -1
	}
	*dst = in
	return e + 1
}

// Raw copies the value at b[at], which must be valid JSON and not null,
// into *dst: a value passed on as it is written (a tool's input) must
// encode again.
func Raw(b []byte, at int, dst *[]byte) int {
	e := RawUnchecked(b, at, dst)
	if e > 0 && !json.Valid(*dst) {
		return -1
	}
	return e
}

// RawUnchecked is Raw without validating the value: for one its caller
// reads further, and so checks, before it uses it.
func RawUnchecked(b []byte, at int, dst *[]byte) int {
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
	switch {
	case e < 0:
		return -1
	case string(b[at:e]) == "true":
		*dst = true
	case string(b[at:e]) == "false":
		*dst = false
	default:
		return -1
	}
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

// Whole reports whether end, where a reader of b stopped, is the end of b
// but for spaces.
func Whole(b []byte, end int) bool { return end >= 0 && skipSpace(b, end) == len(b) }
