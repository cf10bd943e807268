package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A Schema is what a reader takes of one kind of JSON object, declared as
// data: the members it reads, each by its key as encoding/json matches it
// to a struct field of a T, and how the member's value fills the T (a
// Field). One walker fills a T from the bytes of an object (Read), in one
// pass and without reflection, as encoding/json would decode the object
// into a T: each key in its exact spelling at most once, each value of its
// field's type. Anything it cannot vouch for makes it refuse: a key
// encoding/json would match otherwise (escaped, of another case, or not
// ASCII), a key repeated (encoding/json would merge the two), a value of
// another type (encoding/json would report an error). The caller then
// decodes the object with encoding/json, so that what a Schema takes is
// what encoding/json reads (FuzzSchemas holds every format's schemas to
// that). Members it does not read are skipped by their strings and
// brackets, not validated. Nested objects and arrays of objects are read
// by their own Schema (PtrKey, StructKey, SliceKey).
//
// A Schema is built once (a package variable) and is safe for concurrent
// use.
type Schema[T any] struct {
	fields []Field[T]
}

// A Field is one member of a Schema: its key and the reading of its value
// into a T. read returns where the value ends in b, or -1 to refuse it.
type Field[T any] struct {
	key  string
	read func(b []byte, at int, dst *T) int
}

// maxFields bounds a Schema's fields: each has its bit in the set of keys
// met, which refuses a key met twice.
const maxFields = 64

// NewSchema returns the Schema of fields. A key that is repeated or not
// ASCII, or more than 64 fields, is a mistake in the program: it panics.
func NewSchema[T any](fields ...Field[T]) *Schema[T] {
	if len(fields) > maxFields {
		panic(fmt.Sprintf("jsonl: a schema of %d fields", len(fields)))
	}
	for i, f := range fields {
		for _, c := range []byte(f.key) {
			if c >= utf8.RuneSelf || c == '"' || c == '\\' || c < 0x20 {
				panic(fmt.Sprintf("jsonl: schema key %q is not plain ASCII", f.key))
			}
		}
		for _, g := range fields[:i] {
			if g.key == f.key {
				panic(fmt.Sprintf("jsonl: schema key %q twice", f.key))
			}
		}
	}
	return &Schema[T]{fields}
}

// The ids a Schema gives keys that are not among its fields.
const (
	otherKey = -1 // a key no decoder takes for one of them
	foldsKey = -2 // a key encoding/json may take for one of them
)

// id names key (as written): the index of its field, else foldsKey when
// encoding/json could still match it to one, else otherKey. It depends on
// the key's bytes alone, as a Shape requires. encoding/json matches a key
// other than by its exact spelling by escapes, or by folding case (and a
// non-ASCII key, whose folding can change its length in UTF-8, the Kelvin
// sign or the long s, is taken to).
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
	if k == otherKey && (bytes.IndexByte(key, '\\') >= 0 || !ascii(key)) {
		k = foldsKey
	}
	return k
}

// ascii reports whether b is all ASCII.
func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Read fills *dst, which it zeroes first, from the object that is the
// whole of b (but for spaces around it); false when it refuses (see
// Schema), *dst then zero.
func (s *Schema[T]) Read(b []byte, dst *T) bool { return s.ReadShaped(nil, b, dst) }

// ReadShaped is Read with the keys of the objects read before b
// remembered in sh (nil: none), as a scan of many lines has them. sh must
// be read with this schema only: it remembers the schema's name of each
// key.
func (s *Schema[T]) ReadShaped(sh *Shape, b []byte, dst *T) bool {
	var zero T
	*dst = zero
	if !Whole(b, s.walk(sh, b, skipSpace(b, 0), dst)) {
		*dst = zero
		return false
	}
	return true
}

// ReadAt fills *dst from the object at b[at] and returns where it ends, or
// -1 when it refuses: for a reader of an object inside another.
func (s *Schema[T]) ReadAt(b []byte, at int, dst *T) int { return s.walk(nil, b, at, dst) }

// ReadShapedAt is ReadAt with the keys of the objects read before
// remembered in sh (see ReadShaped). Like ReadAt, it does not zero *dst:
// a reader of many lines can keep in it what it carries from one to the
// next.
func (s *Schema[T]) ReadShapedAt(sh *Shape, b []byte, at int, dst *T) int {
	return s.walk(sh, b, at, dst)
}

// walk is the one walker (see walk) with s's keys.
func (s *Schema[T]) walk(sh *Shape, b []byte, i int, dst *T) int {
	var seen uint64
	return walk(b, i, sh, s.id, func(_ []byte, k, at int) int {
		switch {
		case k == otherKey:
			return valueEnd(b, at)
		case k < 0 || seen&(1<<k) != 0:
			return -1
		}
		seen |= 1 << k
		return s.fields[k].read(b, at, dst)
	})
}

// Key is the member key, whose value read reads into the V that f gives
// of a T: every kind of Field but FuncKey is one. read returns where the
// value ends, or -1 to refuse it.
func Key[T, V any](key string, f func(*T) *V, read func(b []byte, at int, dst *V) int) Field[T] {
	return Field[T]{key, func(b []byte, at int, dst *T) int { return read(b, at, f(dst)) }}
}

// FuncKey is a member read by read, which returns where its value ends,
// or -1 to refuse it: for a field none of the others reads (a pointer to
// an int, say). Its reading must be what encoding/json's is.
func FuncKey[T any](key string, read func(b []byte, at int, dst *T) int) Field[T] {
	return Field[T]{key, read}
}

// The kinds of Field, each read as encoding/json reads the member into the
// field f gives (by the reader of known.go it names), a null or a value of
// another type refused unless said otherwise.

func StringKey[T any](key string, f func(*T) *string) Field[T]       { return Key(key, f, String) }
func StringPtrKey[T any](key string, f func(*T) **string) Field[T]   { return Key(key, f, NewString) }
func IntKey[T any](key string, f func(*T) *int64) Field[T]           { return Key(key, f, Int) }
func BoolKey[T any](key string, f func(*T) *bool) Field[T]           { return Key(key, f, Bool) }
func RawKey[T any](key string, f func(*T) *json.RawMessage) Field[T] { return Key(key, f, Raw) }
func StringsKey[T any](key string, f func(*T) *[]string) Field[T] {
	return Key(key, f, arrayOf(String))
}
func RawUncheckedKey[T any](key string, f func(*T) *json.RawMessage) Field[T] {
	return Key(key, f, RawUnchecked)
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

// The kinds below do not refuse a value of another type: they leave their
// field zero for it, as encoding/json does where its caller ignores type
// errors (a reader that only classifies lines, the way a decoding that
// forgives such errors would).

func TextKey[T any](key string, f func(*T) *Text) Field[T] { return Key(key, f, readText) }
func TrueKey[T any](key string, f func(*T) *bool) Field[T] { return Key(key, f, readTrue) }
func BorrowedKey[T any](key string, f func(*T) *json.RawMessage) Field[T] {
	return Key(key, f, Borrowed)
}
