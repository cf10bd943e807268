package jsonl

import (
	"encoding/json"
	"reflect"
	"testing"
)

// knownT is a struct of every kind the readers read.
type knownT struct {
	S   string          `json:"s"`
	N   int64           `json:"n"`
	B   bool            `json:"b"`
	R   json.RawMessage `json:"r"`
	A   []string        `json:"a"`
	Sub *struct {
		S string `json:"s"`
	} `json:"sub"`
}

var knownKeys = []string{"s", "n", "b", "r", "a", "sub"}

// readKnown reads b into a knownT with the readers.
func readKnown(b []byte) (knownT, bool) {
	var v knownT
	end := Known(b, skipSpace(b, 0), knownKeys, func(k, at int) int {
		switch knownKeys[k] {
		case "s":
			return String(b, at, &v.S)
		case "n":
			return Int(b, at, &v.N)
		case "b":
			return Bool(b, at, &v.B)
		case "r":
			return Raw(b, at, (*[]byte)(&v.R))
		case "a":
			return Array(b, at, func() { v.A = []string{} }, func(at int) int {
				var s string
				e := String(b, at, &s)
				v.A = append(v.A, s)
				return e
			})
		}
		v.Sub = &struct {
			S string `json:"s"`
		}{}
		return Known(b, at, []string{"s"}, func(_, at int) int { return String(b, at, &v.Sub.S) })
	})
	if !Whole(b, end) {
		return knownT{}, false
	}
	return v, true
}

var knownSeeds = []string{
	`{"s":"a\nb","n":-12,"b":true,"r":{"x":[1,"}"]},"a":["x","y\u00e9"],"sub":{"s":"t","u":1},"other":[{"s":5}]}`,
	` { "s" : "x" , "a" : [ ] } `, `{}`, `{"a":[]}`, `{"b":false}`,
	`{"s":null}`, `{"n":1.5}`, `{"n":1e2}`, `{"n":"1"}`, `{"n":99999999999999999999}`, `{"b":"true"}`,
	`{"r":null}`, `{"r":"str"}`, `{"a":"x"}`, `{"a":[1]}`, `{"a":[null]}`, `{"sub":[]}`,
	`{"S":"x"}`, `{"\u0073":"x"}`, `{"s":"x","s":"y"}`, `{"ſ":"x"}`, `{"s":"\ud83d\ude00"}`, `{"s":"x"} x`,
	`{"s":"x",}`, `{"s":"x"`, `[]`, `{"r":{"a":tru}}`,
}

// checkKnown fails t unless the readers, where they take a valid JSON
// object, read what encoding/json reads, without an error.
func checkKnown(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := readKnown(b)
	if !ok {
		if !reflect.DeepEqual(got, knownT{}) {
			t.Fatalf("%s: refused, yet read %#v", b, got)
		}
		return false
	}
	if !json.Valid(b) {
		if got.R != nil && !json.Valid(got.R) {
			t.Fatalf("%s: Raw took invalid JSON %s", b, got.R)
		}
		return true
	}
	var want knownT
	if err := json.Unmarshal(b, &want); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nread %#v\nwant %#v (%v)", b, got, want, err)
	}
	return true
}

func TestKnown(t *testing.T) {
	taken := 0
	for _, s := range knownSeeds {
		if checkKnown(t, []byte(s)) {
			taken++
		}
	}
	if taken < 5 {
		t.Fatalf("the readers took only %d seeds", taken)
	}
	if Folds([]byte("s"), knownKeys) || !Folds([]byte("S"), knownKeys) || !Folds([]byte(`\u0073`), knownKeys) || !Folds([]byte("é"), knownKeys) {
		t.Error("Folds")
	}
}

func FuzzKnown(f *testing.F) {
	for _, s := range knownSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkKnown(t, b) })
}
