package openrpc

import (
	"fmt"
	"slices"
	"strings"
)

// bundleOf is a plain JSON Schema (draft-07) of every type, for generators
// that read JSON Schema rather than OpenRPC (json-schema-to-typescript,
// quicktype): the same schemas under definitions.
func bundleOf(all map[string]*schema) ([]byte, error) {
	defs := map[string]*schema{}
	for name, s := range all {
		defs[name] = rewrite(s, func(ref string) string {
			return "#/definitions/" + strings.TrimPrefix(ref, schemaRefPrefix)
		})
	}
	return encode(struct {
		Schema      string             `json:"$schema"`
		ID          string             `json:"$id"`
		Title       string             `json:"title"`
		Description string             `json:"description"`
		Definitions map[string]*schema `json:"definitions"`
	}{"http://json-schema.org/draft-07/schema#", "urn:cdevd:schema", "cdevd",
		"Every type of cdevd's wire protocol (generated with openrpc.json; see it for the methods).", defs})
}

// tableOf lists the methods for people: name, direction, params, result
// and errors.
func tableOf(doc document) ([]byte, error) {
	var b strings.Builder
	b.WriteString("# cdevd methods\n\nGenerated from the Go types with openrpc.json (`go generate ./openrpc`); do not edit.\n" +
		"Params in **bold** are required. Schemas are in openrpc.json and cdevd.schema.json.\n\n" +
		"| Method | Direction | Params | Result | Errors |\n|---|---|---|---|---|\n")
	for _, m := range append(slices.Clone(doc.Methods), doc.XNotifications...) {
		var params, errs []string
		for _, p := range m.Params {
			if p.Required {
				params = append(params, "**"+p.Name+"**")
			} else {
				params = append(params, p.Name)
			}
		}
		for _, e := range m.Errors {
			name := strings.TrimPrefix(e.Ref, "#/components/errors/")
			errs = append(errs, fmt.Sprintf("%d %s", doc.Components.Errors[name].Code, name))
		}
		result := "none (notification)"
		if m.Result != nil {
			result = strings.TrimPrefix(m.Result.Schema.Ref, schemaRefPrefix)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", m.Name, m.Direction, strings.Join(params, ", "), result, strings.Join(errs, ", "))
	}
	return []byte(b.String()), nil
}
