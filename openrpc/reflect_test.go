package openrpc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type level string

func (level) Enum() []string { return []string{"low", "high"} }

type point struct {
	X int `json:"x"`
}

type header struct {
	ID string `json:"id" doc:"The id."`
}

type sample struct {
	header
	Name   string          `json:"name"`
	Note   string          `json:"note,omitempty"`
	At     string          `json:"at" format:"date-time"`
	Status string          `json:"status" enum:"ok"`
	Level  level           `json:"level" doc:"How much."`
	Input  json.RawMessage `json:"input,omitempty" schema:"object"`
	Value  json.RawMessage `json:"value,omitempty" schema:"any"`
	Where  *point          `json:"where,omitempty"`
	Path   []point         `json:"path"`
	Meta   map[string]any  `json:"meta"`
	Counts map[string]int  `json:"counts"`
	Cost   *float64        `json:"cost,omitempty"`
	Kind   string          `json:"kind" enum:"a,b"`
	Key    string          `json:"key,omitempty" known:"up,down"`
	Limit  int             `json:"limit,omitempty" minimum:"0" maximum:"500"`
	Plain  bool
	Hidden string `json:"-"`
}

func TestReflectConventions(t *testing.T) {
	r := newReflector()
	ref, err := r.schemaOf(reflect.TypeFor[sample]())
	if err != nil {
		t.Fatal(err)
	}
	if ref.Ref != "#/components/schemas/sample" {
		t.Errorf("ref = %q, want #/components/schemas/sample", ref.Ref)
	}
	got, err := json.Marshal(r.components)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
		"level": {"title": "level", "type": "string", "enum": ["low", "high"]},
		"point": {"title": "point", "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
		"sample": {
			"title": "sample",
			"type": "object",
			"properties": {
				"id": {"description": "The id.", "type": "string"},
				"name": {"type": "string"},
				"note": {"type": "string"},
				"at": {"type": "string", "format": "date-time", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"},
				"status": {"type": "string", "enum": ["ok"]},
				"level": {"allOf": [{"$ref": "#/components/schemas/level"}], "description": "How much."},
				"input": {"type": "object"},
				"value": {},
				"where": {"$ref": "#/components/schemas/point"},
				"path": {"type": "array", "items": {"$ref": "#/components/schemas/point"}},
				"meta": {"type": "object"},
				"counts": {"type": "object", "additionalProperties": {"type": "integer"}},
				"cost": {"type": "number"},
				"kind": {"type": "string", "enum": ["a", "b"]},
				"key": {"anyOf": [{"type": "string", "enum": ["up", "down"]}, {"type": "string"}]},
				"limit": {"type": "integer", "minimum": 0, "maximum": 500},
				"Plain": {"type": "boolean"}
			},
			"required": ["id", "name", "at", "status", "level", "path", "meta", "counts", "kind", "Plain"]
		}
	}`
	if !jsonEqual(t, got, []byte(want)) {
		t.Errorf("components:\n%s\nwant:\n%s", got, want)
	}
}

func TestReflectRejects(t *testing.T) {
	type untyped struct {
		Raw json.RawMessage `json:"raw"`
	}
	type enumOnInt struct {
		N int `json:"n" enum:"1"`
	}
	type schemaOnString struct {
		S string `json:"s" schema:"object"`
	}
	type intKeys struct {
		M map[int]string `json:"m"`
	}
	type boundOnString struct {
		S string `json:"s" maximum:"3"`
	}
	type function struct {
		F func() `json:"f"`
	}
	type clash struct {
		header
		ID string `json:"id"`
	}
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[untyped](), "schema:\"object\", \"array\" or \"any\""},
		{reflect.TypeFor[boundOnString](), "needs an integer field"},
		{reflect.TypeFor[enumOnInt](), "plain string field"},
		{reflect.TypeFor[schemaOnString](), "only types a json.RawMessage"},
		{reflect.TypeFor[intKeys](), "not a string"},
		{reflect.TypeFor[function](), "unsupported type"},
		{reflect.TypeFor[clash](), `two fields named "id"`},
	} {
		t.Run(tc.typ.Name(), func(t *testing.T) {
			_, err := newReflector().schemaOf(tc.typ)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestReflectRejectsTwoTypesWithOneName(t *testing.T) {
	first := func() reflect.Type {
		type dup struct{ A string }
		return reflect.TypeFor[dup]()
	}()
	second := func() reflect.Type {
		type dup struct{ B string }
		return reflect.TypeFor[dup]()
	}()
	r := newReflector()
	if _, err := r.schemaOf(first); err != nil {
		t.Fatal(err)
	}
	if _, err := r.schemaOf(second); err == nil || !strings.Contains(err.Error(), "two types named dup") {
		t.Errorf("err = %v, want two types named dup", err)
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%v in %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}
