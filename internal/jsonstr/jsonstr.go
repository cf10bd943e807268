// Package jsonstr appends a string as a JSON string literal, byte for byte
// as encoding/json writes it with HTML escaping off, but without its
// buffer growth and reflection: for answers that are mostly one large
// string (a file's content), where encoding/json's copies were most of the
// cost.
package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Append appends s to dst as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD, and
// U+2028 and U+2029 escaped (as encoding/json does, for JavaScript's sake).
func Append(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: most of a text file is printable
		// ASCII, and one word test is cheaper than eight byte tests.
		for i+8 <= len(s) && !special8(load8(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// load8 reads s[i:i+8] as a little-endian word (the compiler makes it one
// load).
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// special8 reports whether a byte of x needs a closer look: below 0x20, a
// quote, a backslash, or not ASCII. (The "has a byte less than n" test is
// exact for n ≤ 128: no false answer either way.)
func special8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := func(x uint64, n uint64) uint64 { return (x - ones*n) & ^x & highs }
	zero := func(x uint64) uint64 { return less(x, 1) }
	return (less(x, 0x20) | zero(x^(ones*'"')) | zero(x^(ones*'\\')) | x&highs) != 0
}
