package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encodingJSON is what Append must equal: encoding/json without HTML
// escaping, as cdevd's transport encodes every other answer.
func encodingJSON(t testing.TB, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendIsEncodingJSON(t *testing.T) {
	var every strings.Builder
	for c := range 256 {
		every.WriteByte(byte(c)) // every byte, control characters and invalid UTF-8 included
	}
	cases := []string{"", "plain text", "a\"b\\c\n\r\t\b\f\x00\x1f\x7f", "<html>&'", "é日本\u2028\u2029\U0001F600",
		"\xff\xfe", "cut \xe6\x97", strings.Repeat("x", 99) + "\n", every.String(), strings.Repeat("abcdefg\"", 9),
		strings.Repeat("ascii run then é", 5)}
	for _, s := range cases {
		if got, want := Append(nil, s), encodingJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
	}
	if got := Append([]byte("prefix:"), "x"); string(got) != `prefix:"x"` {
		t.Errorf("Append does not append: %s", got)
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a\"\\\n\x00", "\xff", "é\u2028", strings.Repeat("12345678", 3) + "\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Append(nil, s), encodingJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}

// BenchmarkAppend1MB: a 1 MB text file's content, against encoding/json.
func BenchmarkAppend1MB(b *testing.B) {
	s := strings.Repeat(strings.Repeat("x", 99)+"\n", 10_000)
	b.Run("jsonstr", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_ = Append(make([]byte, 0, len(s)+len(s)/8), s)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			_ = encodingJSON(b, s)
		}
	})
}
