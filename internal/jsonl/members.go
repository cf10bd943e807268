package jsonl

import "bytes"

// walk is the one walker of an object's members, which a Schema reads with
// and a Shape (sh, unless nil) remembers the keys of. It gives fn each
// member of the object at b[i]: its key as written, the key's id and where
// its value starts; fn returns where the value ends, or -1 to stop. walk
// returns where the object ends, or -1. The steps between keys stay in this
// one loop: put in helpers too big to inline, they cost a Claude scan 3%.
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
		if i = skipSpace(b, ve); i < len(b) && b[i] == '}' {
			return i + 1
		}
		if i >= len(b) || b[i] != ',' {
			return -1
		}
		i = skipSpace(b, i+1)
	}
}

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

// ValueEnd is the index just after the JSON value at b[i], or -1 when it is
// cut short or empty. Nothing is validated: an object or array ends where
// its brackets (of any kind) balance, a scalar at the next delimiter.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '}', ']', ',', ':':
		return -1
	case '"', '{', '[':
	default: // a scalar
		for j := i; j < len(b); j++ {
			switch b[j] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return j
			}
		}
		return len(b)
	}
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			e := stringEnd(b, i+1)
			if e < 0 {
				return -1
			}
			if i = e; depth == 0 {
				return e + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}
