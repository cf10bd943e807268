package jsonl

import "bytes"

// walk is the one walker of an object's members, which a Schema reads
// with (and a Shape remembers the keys of): the object at b[i], each member
// given to fn as its key (as written, escapes not decoded), the key's id
// and where its value starts. id, unless nil, names a key (see Shape), and
// sh, unless nil, remembers the names of the keys met at each place. fn
// returns where the value ends, or -1 to stop the walk; walk returns where
// the object ends, or -1. The steps between keys stay in this one loop: put
// in helpers too big to inline, they cost a Claude scan 3%.
func walk(b []byte, i int, sh *Shape, id func(key []byte) int, fn func(key []byte, k, at int) int) int {
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1
	}
	for n := 0; ; n++ {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		key, k, ke := sh.key(b, i, n, id)
		if ke < 0 {
			return -1
		}
		if i = skipSpace(b, ke); i >= len(b) || b[i] != ':' {
			return -1
		}
		vs := skipSpace(b, i+1)
		if vs >= len(b) {
			return -1
		}
		ve := fn(key, k, vs)
		if ve <= vs {
			return -1
		}
		if i = skipSpace(b, ve); i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// ValueEnd is the index just after the JSON value that starts at b[i], or
// -1 when it is cut short or empty; nested values are balanced by their
// brackets, not checked (see Members).
func ValueEnd(b []byte, i int) int { return valueEnd(b, i) }

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringEnd is the index of the quote that closes the string whose content
// starts at i, or -1. A quote is escaped when an odd run of backslashes
// precedes it (a run inside a string always starts a fresh escape).
func stringEnd(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		q := i + j
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// valueEnd is the index just after the value starting at i, or -1 when it
// is cut short or empty. Brackets are balanced by count, not by kind.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		e := stringEnd(b, i+1)
		if e < 0 {
			return -1
		}
		return e + 1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				e := stringEnd(b, i+1)
				if e < 0 {
					return -1
				}
				i = e
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	case '}', ']', ',', ':':
		return -1
	}
	// A scalar: up to the next delimiter.
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
		j++
	}
	return j
}
