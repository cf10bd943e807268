package jsonl

import (
	"bytes"
	"unicode/utf8"
)

// Unquote decodes the content of a JSON string (what lies between its
// quotes) as encoding/json does, for the strings transcripts are made of:
// plain UTF-8 and the escapes \" \\ \/ \b \f \n \r \t and \u of a code
// point that is not a surrogate. ok is false for anything else (a
// surrogate escape, invalid UTF-8, a control byte, a bare quote, a bad
// escape), which the caller leaves to encoding/json: tool output is full of
// \n, and json.Unmarshal of each such string validated it, then decoded it
// through reflection, most of a page of Gemini messages. Measured again
// (issue 30, cdevd bench back to back): with encoding/json for every string
// with escapes, Gemini's first page of a never-read 100 MB chat took 172 ms
// rather than 93 (its limit is 100), a replay allocating 829k times, not 477k.
func Unquote(in []byte) (string, bool) {
	b, ok := unquote(in)
	return string(b), ok
}

// unquote is Unquote into bytes: in itself when it holds no escape, else a
// new slice; nil when refused.
func unquote(in []byte) ([]byte, bool) {
	var out []byte
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
		if !plain(in[:i]) {
			return nil, false
		}
		if out == nil {
			out = make([]byte, 0, len(in))
		}
		out = append(out, in[:i]...)
		in = in[i:]
		if len(in) < 2 {
			return nil, false
		}
		n := 2
		switch c := in[1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(in[2:])
			if !ok || 0xd800 <= r && r < 0xe000 {
				return nil, false
			}
			out, n = utf8.AppendRune(out, r), 6
		default:
			return nil, false
		}
		in = in[n:]
	}
}

// plain reports whether b holds no quote or control byte and is valid
// UTF-8: bytes a JSON string holds as they are.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' {
			return false
		}
	}
	return utf8.Valid(b)
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
