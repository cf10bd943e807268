package openrpc

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// schema is the subset of JSON Schema (draft-07, as OpenRPC 1.3 uses) that the
// wire types need.
type schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Items                *schema            `json:"items,omitempty"`
	Properties           map[string]*schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties *schema            `json:"additionalProperties,omitempty"`
	Minimum              *int64             `json:"minimum,omitempty"`
	Maximum              *int64             `json:"maximum,omitempty"`
	AllOf                []*schema          `json:"allOf,omitempty"`
	AnyOf                []*schema          `json:"anyOf,omitempty"`
	OneOf                []*schema          `json:"oneOf,omitempty"`
}

const schemaRefPrefix = "#/components/schemas/"

// enumer is implemented by the named string types of package rpc.
type enumer interface{ Enum() []string }

var (
	enumerType     = reflect.TypeFor[enumer]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
	textMarshType  = reflect.TypeFor[encoding.TextMarshaler]()
)

// field is one JSON property of a struct, embedded structs flattened.
type field struct {
	name     string
	doc      string
	required bool
	schema   *schema // without the doc: callers place it
}

// reflector turns Go types into schemas, collecting every named type it meets
// as a component so each is described once and referenced everywhere.
type reflector struct {
	components map[string]*schema
	types      map[string]reflect.Type // which Go type owns each component name
	// custom describes the types whose wire shape Go's types cannot say
	// (a union keyed by a field); see variants.go.
	custom map[reflect.Type]func(*reflector) (*schema, error)
}

func newReflector() *reflector {
	return &reflector{components: map[string]*schema{}, types: map[string]reflect.Type{}, custom: customSchemas}
}

// schemaOf returns the schema of values of type t: a $ref for named types,
// an inline schema otherwise. Pointers describe their pointee because every
// pointer on the wire is an optional value, never a meaningful null.
func (r *reflector) schemaOf(t reflect.Type) (*schema, error) {
	if t.Kind() == reflect.Pointer {
		return r.schemaOf(t.Elem())
	}
	if t == rawMessageType {
		return nil, fmt.Errorf("json.RawMessage needs a schema tag (object or any)")
	}
	if t.Implements(marshalerType) || t.Implements(textMarshType) {
		return nil, fmt.Errorf("%v marshals itself; its wire shape cannot be reflected", t)
	}
	if t.Name() != "" && t.PkgPath() != "" {
		return r.named(t)
	}
	return r.inline(t)
}

// schemaNamer is a wire type whose schema keeps a name other than its Go
// name, so that renaming the Go type does not rename it for clients.
type schemaNamer interface{ SchemaName() string }

var schemaNamerType = reflect.TypeFor[schemaNamer]()

// schemaName is the name of named type t's schema.
func schemaName(t reflect.Type) string {
	if t.Implements(schemaNamerType) {
		return reflect.Zero(t).Interface().(schemaNamer).SchemaName()
	}
	return t.Name()
}

func (r *reflector) named(t reflect.Type) (*schema, error) {
	name := schemaName(t)
	ref := &schema{Ref: schemaRefPrefix + name}
	if owner, ok := r.types[name]; ok {
		if owner != t {
			return nil, fmt.Errorf("two types named %s: %v and %v", name, owner, t)
		}
		return ref, nil
	}
	// Claim the name before describing the type so a type that refers to
	// itself gets a $ref instead of endless recursion.
	r.types[name] = t

	var (
		s   *schema
		err error
	)
	custom, isCustom := r.custom[t]
	switch {
	case isCustom:
		s, err = custom(r)
	case t.Kind() == reflect.Struct:
		s, err = r.object(t)
	case t.Implements(enumerType):
		if t.Kind() != reflect.String {
			return nil, fmt.Errorf("%v has an Enum method but is not a string", t)
		}
		s = &schema{Type: "string", Enum: reflect.Zero(t).Interface().(enumer).Enum()}
	default:
		s, err = r.inline(t)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.Title = name
	r.components[name] = s
	return ref, nil
}

// inline describes unnamed types and the underlying shape of named non-struct ones.
func (r *reflector) inline(t reflect.Type) (*schema, error) {
	switch t.Kind() {
	case reflect.String:
		return &schema{Type: "string"}, nil
	case reflect.Bool:
		return &schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &schema{Type: "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}, nil
	case reflect.Interface:
		return &schema{}, nil
	case reflect.Slice, reflect.Array:
		items, err := r.schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		return &schema{Type: "array", Items: items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key %v is not a string", t.Key())
		}
		values, err := r.schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		s := &schema{Type: "object"}
		if !reflect.DeepEqual(values, &schema{}) {
			s.AdditionalProperties = values
		}
		return s, nil
	}
	return nil, fmt.Errorf("unsupported type %v", t)
}

// object describes a named struct. additionalProperties stays unset because
// clients must ignore fields they do not know.
func (r *reflector) object(t reflect.Type) (*schema, error) {
	fields, err := r.fields(t)
	if err != nil {
		return nil, err
	}
	s := &schema{Type: "object"}
	for _, f := range fields {
		if s.Properties == nil {
			s.Properties = map[string]*schema{}
		}
		s.Properties[f.name] = describe(f.schema, f.doc)
		if f.required {
			s.Required = append(s.Required, f.name)
		}
	}
	return s, nil
}

// describe attaches a description. A $ref is wrapped in allOf rather than
// given a sibling: draft-07 ignores a $ref's siblings, and linters flag them.
func describe(s *schema, doc string) *schema {
	if doc == "" {
		return s
	}
	if s.Ref != "" {
		return &schema{Description: doc, AllOf: []*schema{s}}
	}
	d := *s
	d.Description = doc
	return &d
}

// fields lists the JSON properties of struct t in declaration order, the way
// encoding/json sees them, except that a name given twice is an error rather
// than silently shadowed.
func (r *reflector) fields(t reflect.Type) ([]field, error) {
	var fields []field
	for sf := range t.Fields() {
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			embedded, err := r.fields(sf.Type)
			if err != nil {
				return nil, err
			}
			fields = append(fields, embedded...)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		s, err := r.fieldSchema(sf)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", sf.Name, err)
		}
		fields = append(fields, field{
			name:     name,
			doc:      sf.Tag.Get("doc"),
			required: !slices.Contains(strings.Split(opts, ","), "omitempty"),
			schema:   s,
		})
	}
	for i, f := range fields {
		if slices.ContainsFunc(fields[:i], func(g field) bool { return g.name == f.name }) {
			return nil, fmt.Errorf("%v: two fields named %q", t, f.name)
		}
	}
	return fields, nil
}

// fieldSchema applies the field tags that refine a type's schema.
func (r *reflector) fieldSchema(sf reflect.StructField) (*schema, error) {
	kind, hasKind := sf.Tag.Lookup("schema")
	if sf.Type == rawMessageType {
		switch kind {
		case "object":
			return &schema{Type: "object"}, nil
		case "array":
			// An array of objects. Items are always given: generators
			// cannot name an array without them.
			return &schema{Type: "array", Items: &schema{Type: "object"}}, nil
		case "any":
			return &schema{}, nil
		}
		return nil, fmt.Errorf("json.RawMessage needs schema:\"object\", \"array\" or \"any\", not %q", kind)
	}
	if hasKind {
		return nil, fmt.Errorf("a schema tag only types a json.RawMessage")
	}
	s, err := r.schemaOf(sf.Type)
	if err != nil {
		return nil, err
	}
	enum, hasEnum := sf.Tag.Lookup("enum")
	known, hasKnown := sf.Tag.Lookup("known")
	format, hasFormat := sf.Tag.Lookup("format")
	if (hasEnum || hasKnown || hasFormat) && s.Type != "string" {
		return nil, fmt.Errorf("enum, known and format tags need a plain string field")
	}
	if hasEnum {
		s.Enum = strings.Split(enum, ",")
	}
	s.Format = format
	if format == "date-time" {
		// RFC 3339 allows many spellings; the wire uses one.
		s.Pattern = rpc.TimePattern
	}
	if hasKnown {
		// An open set: the listed values are the ones with a meaning, any
		// other string is accepted too (an option key, answer text).
		s = &schema{AnyOf: []*schema{{Type: "string", Enum: strings.Split(known, ",")}, {Type: "string"}}}
	}
	for tag, dst := range map[string]**int64{"minimum": &s.Minimum, "maximum": &s.Maximum} {
		v, ok := sf.Tag.Lookup(tag)
		if !ok {
			continue
		}
		if s.Type != "integer" {
			return nil, fmt.Errorf("a %s tag needs an integer field", tag)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s tag: %w", tag, err)
		}
		*dst = &n
	}
	return s, nil
}
