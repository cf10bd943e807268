package jsonl

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The readers below read the value at b[at] as encoding/json decodes it
// into their type, and return where it ends; they refuse (-1) a value of
// another type, or one only encoding/json reads rightly (see Schema).

// String reads the string at b[at] into *dst (see unquote).
func String(b []byte, at int, dst *string) int {
	var s []byte
	e := Bytes(b, at, &s)
	if e >= 0 {
		*dst = string(s)
	}
	return e
}

// Bytes is String into a part of b when the string holds no escape, else a
// new slice: a string allocated for each was most of what a Gemini replay,
// which keeps few of them, allocated.
func Bytes(b []byte, at int, dst *[]byte) int {
	e := ValueEnd(b, at)
	if e < 0 || b[at] != '"' {
		return -1
	}
	s, ok := unquote(b[at+1 : e-1])
	if !ok {
		return -1
	}
	*dst = s
	return e
}

// raw copies the value at b[at], not null, and valid JSON: a value passed
// on as written (a tool's input) must encode again.
func raw(b []byte, at int, dst *json.RawMessage) int {
	e := ValueEnd(b, at)
	if e < 0 || string(b[at:e]) == "null" || !json.Valid(b[at:e]) {
		return -1
	}
	*dst = append([]byte(nil), b[at:e]...)
	return e
}

// Int reads an integer as into an int64: a fraction, an exponent or an
// overflow is refused.
func Int(b []byte, at int, dst *int64) int {
	e := ValueEnd(b, at)
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

// readBool reads the literal true or false.
func readBool(b []byte, at int, dst *bool) int {
	e := ValueEnd(b, at)
	if e < 0 || string(b[at:e]) != "true" && string(b[at:e]) != "false" {
		return -1
	}
	*dst = string(b[at:e]) == "true"
	return e
}

// Array calls fn with the offset of each element of the array at b[at],
// which returns where the element ends, or -1 to refuse it; empty, unless
// nil, is called first (encoding/json makes an empty, not nil, slice of []).
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
		if i = skipSpace(b, e); i < len(b) && b[i] == ']' {
			return i + 1
		}
		if i >= len(b) || b[i] != ',' {
			return -1
		}
		i = skipSpace(b, i+1)
	}
	return -1
}

// arrayOf reads an array, each element by read into a new E appended.
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

// Whole reports whether end, where a reader stopped, is the end of b but
// for spaces.
func Whole(b []byte, end int) bool { return end >= 0 && skipSpace(b, end) == len(b) }

// borrowed reads any value as written, null included (as encoding/json
// fills a json.RawMessage), borrowed from b, not validated.
func borrowed(b []byte, at int, dst *json.RawMessage) int {
	e := ValueEnd(b, at)
	if e >= 0 {
		*dst = b[at:e:e]
	}
	return e
}

// unquote decodes a JSON string's content as encoding/json does, for the
// strings transcripts are made of: UTF-8, the one-letter escapes and \u of
// a code point that is not a surrogate; in itself when it holds no escape.
// Anything else (a surrogate, invalid UTF-8, a control byte, a bare quote,
// a bad escape) it refuses, for encoding/json. Tool output is full of \n:
// with encoding/json for every string with escapes, Gemini's first page of a
// never-read 100 MB chat took 172 ms, not 93 (its limit is 100), a replay
// allocating 829k times, not 477k (issue 30, cdevd bench back to back).
func unquote(in []byte) (out []byte, ok bool) {
	for {
		i := bytes.IndexByte(in, '\\')
		if i < 0 {
			if !plain(in) {
				return nil, false
			}
			if out == nil {
				return in, true
			}
			return append(out, in...), true
		}
		if !plain(in[:i]) || i+1 >= len(in) {
			return nil, false
		}
		if out == nil {
			out = make([]byte, 0, len(in))
		}
		out = append(out, in[:i]...)
		c, n := in[i+1], 2
		switch {
		case unescaped[c] != 0:
			out = append(out, unescaped[c])
		case c == 'u' && i+6 <= len(in):
			// Four hex digits: base 16 takes neither a sign, a prefix nor _.
			r, err := strconv.ParseUint(string(in[i+2:i+6]), 16, 32)
			if err != nil || 0xd800 <= r && r < 0xe000 {
				return nil, false
			}
			out, n = utf8.AppendRune(out, rune(r)), 6
		default:
			return nil, false
		}
		in = in[i+n:]
	}
}

// unescaped is what the one-letter escape \c stands for (0: none).
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// plain reports whether b is UTF-8 with no quote or control byte: what a
// JSON string holds unescaped.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' {
			return false
		}
	}
	return utf8.Valid(b)
}
