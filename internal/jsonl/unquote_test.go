package jsonl

import (
	"encoding/json"
	"testing"
)

var unquoteSeeds = []string{
	``, `plain`, `a\nb`, `\"quoted\"`, `back\\slash`, `\/\b\f\n\r\t`, `\u0041\u00e9\u20ac`,
	`\u00`, `\u00zz`, `\x`, `\`, `end\`, `\ud83d\ude00`, `\ud83d`, `\udc00x`, `é€😀`, "tab\there",
	"bad\xffutf8", `a"b`, `\u0000`, `\u001F`, `\uFFFF`, `\uabcd\uABCD`, "line\nbreak",
	`step 5\n lorem ipsum lorem ipsum`,
}

// checkUnquote fails t unless unquote, when it takes in, decodes it as
// encoding/json decodes the string "in", and takes the strings transcripts
// are made of.
func checkUnquote(t *testing.T, in []byte) bool {
	t.Helper()
	b, ok := unquote(in)
	got := string(b)
	var want string
	err := json.Unmarshal([]byte(`"`+string(in)+`"`), &want)
	if ok && (err != nil || got != want) {
		t.Fatalf("unquote(%q) = %q; encoding/json %q, %v", in, got, want, err)
	}
	if !ok && got != "" {
		t.Fatalf("unquote(%q) refused, yet returned %q", in, got)
	}
	return ok
}

func TestUnquote(t *testing.T) {
	taken := 0
	for _, s := range unquoteSeeds {
		if checkUnquote(t, []byte(s)) {
			taken++
		}
	}
	for _, s := range []string{`a\nb`, `\"quoted\"`, `\/\b\f\n\r\t`, `\u0041\u00e9\u20ac`, `é€😀`, `\uFFFF`} {
		if _, ok := unquote([]byte(s)); !ok {
			t.Errorf("unquote(%q) refused a string transcripts are made of", s)
		}
	}
	if taken < 12 {
		t.Fatalf("unquote took only %d seeds", taken)
	}
}

func FuzzUnquote(f *testing.F) {
	for _, s := range unquoteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkUnquote(t, in) })
}
