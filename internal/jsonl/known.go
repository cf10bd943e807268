package jsonl

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The readers below decode the members of a line that a caller knows, as
// encoding/json decodes them into a struct, in one pass and without
// reflection, for the shapes the agent CLIs write: each known key in its
// exact spelling once, each value of its expected type and not null.
// Anything else makes them refuse (-1), and the caller decodes the line
// with encoding/json instead, so that what they take is what encoding/json
// reads (each caller's fuzz test holds it to that). What they skip is not
// validated. A Schema (schema.go) declares the same as data, and is what a
// new reader uses; Known is its form for readers that switch on keys.

// Folds reports whether encoding/json could match key (as written) to one
// of known other than by its exact spelling: by escapes, or by folding case
// (and a non-ASCII key, whose folding can change its length in UTF-8, the
// Kelvin sign or the long s, is taken to).
func Folds(key []byte, known []string) bool {
	if bytes.IndexByte(key, '\\') >= 0 {
		return true
	}
	for _, k := range known {
		if len(k) == len(key) && string(key) != k && strings.EqualFold(string(key), k) {
			return true
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// Known walks the object at b[i] whose members of interest are known (at
// most 64): fn reads the value at b[at] of known[k] and returns where it
// ends, or -1 to refuse it. Other members are skipped. It returns where the
// object ends, or -1 when it is not one of that shape, repeats a known key
// (encoding/json would merge the two) or has a key that Folds to one.
func Known(b []byte, i int, known []string, fn func(k, at int) int) int {
	var seen uint64
	return walk(b, i, nil, nil, func(key []byte, _, at int) int {
		for k, name := range known {
			if string(key) == name {
				if seen&(1<<k) != 0 {
					return -1
				}
				seen |= 1 << k
				return fn(k, at)
			}
		}
		if Folds(key, known) {
			return -1
		}
		return valueEnd(b, at)
	})
}

// String reads the string at b[at] into *dst as encoding/json does.
func String(b []byte, at int, dst *string) int {
	if at >= len(b) || b[at] != '"' {
		return -1
	}
	e := stringEnd(b, at+1)
	if e < 0 {
		return -1
	}
	s, ok := unquote(b[at : e+1])
	if !ok {
		return -1
	}
	*dst = s
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
