package rpc

import "unicode/utf8"

// TruncateUTF8 cuts s to at most n bytes without splitting a character, for
// text shown to users with a size limit (close reasons, previews).
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
