package jsonl

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A Schema declares as data the members a reader takes of one kind of JSON
// object, each a Field of a T. It fills a T from an object's bytes in one
// walk, without reflection, as encoding/json would decode them into a T,
// and refuses what it cannot vouch for, which the caller then decodes with
// encoding/json: a key encoding/json might match otherwise (escaped, of
// another case, not ASCII), a key met twice (encoding/json merges them), a
// value of another type (an error there). Members it does not read are
// skipped by their strings and brackets, not validated. Each reader's fuzz
// target holds its schemas to encoding/json (jsonltest). A Schema is built
// once and safe for concurrent use.
type Schema[T any] struct {
	fields []Field[T]
}

// A Field is a member's key, as encoding/json matches it to a field of a T,
// and read, which reads the value at b[at] into the T and returns where it
// ends, or -1 to refuse it.
type Field[T any] struct {
	key  string
	read func(b []byte, at int, dst *T) int
}

// maxFields bounds a Schema's fields: each has a bit in the set of keys met.
const maxFields = 64

// NewSchema returns the Schema of fields; a key repeated or not plain
// ASCII, or too many fields, is a mistake in the program: it panics.
func NewSchema[T any](fields ...Field[T]) *Schema[T] {
	if len(fields) > maxFields {
		panic(fmt.Sprintf("jsonl: a schema of %d fields", len(fields)))
	}
	s := &Schema[T]{fields}
	for i, f := range fields {
		if strings.ContainsFunc(f.key, func(r rune) bool { return r >= utf8.RuneSelf || r == '"' || r == '\\' || r < 0x20 }) {
			panic(fmt.Sprintf("jsonl: schema key %q is not plain ASCII", f.key))
		}
		if s.id([]byte(f.key)) != i {
			panic(fmt.Sprintf("jsonl: schema key %q twice", f.key))
		}
	}
	return s
}

// The ids a Schema gives keys that are not among its fields.
const (
	otherKey = -1 // a key no decoder takes for one of them
	foldsKey = -2 // a key encoding/json may take for one of them
)

// id names key (as written) by its bytes alone, as a Shape requires: the
// index of its field, else foldsKey when encoding/json could still match it
// to one (through escapes, or folding case, which for the Kelvin sign or
// the long s changes a key's length), else otherKey.
func (s *Schema[T]) id(key []byte) int {
	k := otherKey
	for i, f := range s.fields {
		switch {
		case len(f.key) != len(key):
		case string(key) == f.key:
			return i
		case strings.EqualFold(string(key), f.key):
			k = foldsKey
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf || c == '\\' {
			return foldsKey
		}
	}
	return k
}

// Read fills *dst, zeroed first, from the object that is the whole of b
// but for spaces; false when it refuses, *dst then zero.
func (s *Schema[T]) Read(b []byte, dst *T) bool { return s.ReadShaped(nil, b, dst) }

// ReadShaped is Read with the keys of the lines read before remembered in
// sh (nil: none), as a scan has them; sh is for this schema only.
func (s *Schema[T]) ReadShaped(sh *Shape, b []byte, dst *T) bool {
	var zero T
	*dst = zero
	if !Whole(b, s.ReadShapedAt(sh, b, skipSpace(b, 0), dst)) {
		*dst = zero
		return false
	}
	return true
}

// ReadAt fills *dst from the object at b[at] and returns where it ends, or
// -1 when it refuses.
func (s *Schema[T]) ReadAt(b []byte, at int, dst *T) int { return s.ReadShapedAt(nil, b, at, dst) }

// ReadShapedAt is ReadAt with a Shape (see ReadShaped). Neither zeroes
// *dst: a reader of many lines can keep in it what it carries from one to
// the next.
func (s *Schema[T]) ReadShapedAt(sh *Shape, b []byte, at int, dst *T) int {
	var seen uint64
	return walk(b, at, sh, s.id, func(_ []byte, k, at int) int {
		switch {
		case k == otherKey:
			return ValueEnd(b, at)
		case k < 0 || seen&(1<<k) != 0:
			return -1
		}
		seen |= 1 << k
		return s.fields[k].read(b, at, dst)
	})
}

// FuncKey is a Field read by read, for a field none of the kinds below
// reads; its reading must be encoding/json's.
func FuncKey[T any](key string, read func(b []byte, at int, dst *T) int) Field[T] {
	return Field[T]{key, read}
}

// Key is a Field read by read into the V that f gives of a T.
func Key[T, V any](key string, f func(*T) *V, read func(b []byte, at int, dst *V) int) Field[T] {
	return Field[T]{key, func(b []byte, at int, dst *T) int { return read(b, at, f(dst)) }}
}

// The kinds of Field, each read as encoding/json reads the member into the
// field f gives, a null or a value of another type refused.

func StringKey[T any](key string, f func(*T) *string) Field[T] { return Key(key, f, String) }
func StringPtrKey[T any](key string, f func(*T) **string) Field[T] {
	return Key(key, f, newOf(String))
}
func IntKey[T any](key string, f func(*T) *int64) Field[T] { return Key(key, f, Int) }
func BoolKey[T any](key string, f func(*T) *bool) Field[T] { return Key(key, f, readBool) }
func RawKey[T any](key string, f func(*T) *json.RawMessage) Field[T] {
	return Key(key, f, raw)
}

// StructKey is an object read by s into the U f gives; PtrKey into a new
// U; SliceKey an array of them ([] gives an empty slice, not nil).
func StructKey[T, U any](key string, f func(*T) *U, s *Schema[U]) Field[T] {
	return Key(key, f, s.ReadAt)
}
func PtrKey[T, U any](key string, f func(*T) **U, s *Schema[U]) Field[T] {
	return Key(key, f, newOf(s.ReadAt))
}
func SliceKey[T, U any](key string, f func(*T) *[]U, s *Schema[U]) Field[T] {
	return Key(key, f, arrayOf(s.ReadAt))
}

// BorrowedKey reads any value as written, null included, borrowed from the
// line: a member passed on, or read further only where it is used.
func BorrowedKey[T any](key string, f func(*T) *json.RawMessage) Field[T] {
	return Key(key, f, borrowed)
}
