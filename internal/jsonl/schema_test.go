package jsonl

import (
	"strconv"
	"testing"
)

// TestNewSchemaRefuses: a schema that could not read as encoding/json
// does is a mistake in the program, found when it is built.
func TestNewSchemaRefuses(t *testing.T) {
	type v struct{ S string }
	str := func(k string) Field[v] { return StringKey(k, func(x *v) *string { return &x.S }) }
	many := make([]Field[v], maxFields+1)
	for i := range many {
		many[i] = str("k" + strconv.Itoa(i))
	}
	for name, fields := range map[string][]Field[v]{
		"repeated": {str("a"), str("a")},
		"escaped":  {str(`a\"`)},
		"unicode":  {str("é")},
		"too many": many,
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			NewSchema(fields...)
		}()
	}
}
