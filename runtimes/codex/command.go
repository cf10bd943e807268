package codex

import "strings"

// splitCommand splits the command line app-server shows for a command
// execution ("/bin/bash -lc 'touch x'", Codex's shell-quoted join of the
// argv) back into its words, with POSIX shell quoting: single quotes keep
// everything, double quotes keep all but \" \\ \$ \`, a backslash outside
// quotes escapes the next character. The rollout records the argv itself,
// so live and stored messages derive the same text from it.
func splitCommand(s string) []string {
	words := []string{}
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 { // unterminated: keep the rest as it is
				w.WriteString(s[i+1:])
				i = len(s)
				break
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			inWord = true
			i++
			w.WriteByte(s[i])
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
