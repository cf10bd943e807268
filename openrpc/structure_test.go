package openrpc

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// generated returns the generated files, the document parsed.
func generated(t *testing.T) (map[string][]byte, map[string]any) {
	t.Helper()
	files, err := GenerateFiles()
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(files[DocumentFile], &root); err != nil {
		t.Fatal(err)
	}
	return files, root
}

func TestRequiredParamsComeFirst(t *testing.T) {
	var doc parsedDoc
	files, _ := generated(t)
	if err := json.Unmarshal(files[DocumentFile], &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range doc.Methods {
		for i := 1; i < len(m.Params); i++ {
			if m.Params[i].Required && !m.Params[i-1].Required {
				t.Errorf("%s: required param %s after optional %s", m.Name, m.Params[i].Name, m.Params[i-1].Name)
			}
		}
	}
}

func TestNoRefHasSiblings(t *testing.T) {
	files, _ := generated(t)
	for _, name := range []string{DocumentFile, BundleFile} {
		var root any
		if err := json.Unmarshal(files[name], &root); err != nil {
			t.Fatal(err)
		}
		walk(root, "#", func(ptr string, obj map[string]any) {
			if _, ok := obj["$ref"]; ok && len(obj) > 1 {
				t.Errorf("%s %s: $ref with siblings %v", name, ptr, obj)
			}
		})
	}
}

// TestNoUnusedComponents follows references from the standard positions
// only (params, results, errors), as OpenRPC tools do: every component must
// be reached, and everything else must be in x-schemas.
func TestNoUnusedComponents(t *testing.T) {
	_, root := generated(t)
	used := map[string]bool{}
	var follow func(v any)
	follow = func(v any) {
		walk(v, "", func(_ string, obj map[string]any) {
			ref, _ := obj["$ref"].(string)
			if !strings.HasPrefix(ref, "#/components/") || used[ref] {
				return
			}
			used[ref] = true
			target, err := resolve(root, ref)
			if err != nil {
				t.Errorf("%s: %v", ref, err)
				return
			}
			follow(target)
		})
	}
	for _, m := range root["methods"].([]any) {
		m := m.(map[string]any)
		follow(m["params"])
		follow(m["result"])
		follow(m["errors"])
	}
	comps := root["components"].(map[string]any)
	for _, kind := range []string{"schemas", "errors"} {
		for name := range comps[kind].(map[string]any) {
			if ref := "#/components/" + kind + "/" + name; !used[ref] {
				t.Errorf("%s is never used", ref)
			}
		}
	}
}

func TestServerNotificationsAreLinked(t *testing.T) {
	_, root := generated(t)
	byName := map[string]map[string]any{}
	for _, m := range append(slices.Clone(root["methods"].([]any)), root["x-notifications"].([]any)...) {
		m := m.(map[string]any)
		byName[m["name"].(string)] = m
	}
	union, err := resolve(root, "#/x-schemas/ServerNotification")
	if err != nil {
		t.Fatal(err)
	}
	branches := union.(map[string]any)["oneOf"].([]any)
	if len(branches) != len(rpc.Events) {
		t.Errorf("ServerNotification has %d branches, want one per event (%d)", len(branches), len(rpc.Events))
	}
	for i, spec := range rpc.Events {
		name := rpc.EventPrefix + spec.Type
		m := byName[name]
		if m["x-direction"] != serverToClient || m["x-notification"] != true || m["result"] != nil || m["errors"] != nil {
			t.Errorf("%s is not marked as a server notification: %v", name, m)
		}
		payload := m["x-params-schema"].(map[string]any)["$ref"].(string)
		if _, err := resolve(root, payload); err != nil {
			t.Errorf("%s: x-params-schema %s: %v", name, payload, err)
		}
		if i >= len(branches) {
			continue
		}
		branch, err := resolve(root, branches[i].(map[string]any)["$ref"].(string))
		if err != nil {
			t.Fatal(err)
		}
		props := branch.(map[string]any)["properties"].(map[string]any)
		if method := props["method"].(map[string]any)["enum"].([]any); len(method) != 1 || method[0] != name {
			t.Errorf("branch %d is keyed by %v, want %s", i, method, name)
		}
		if ref := props["params"].(map[string]any)["$ref"]; ref != payload {
			t.Errorf("%s: the union's params are %v, the method's %s", name, ref, payload)
		}
	}
	for _, m := range byName {
		if strings.HasPrefix(m["name"].(string), rpc.EventPrefix) != (m["x-direction"] == serverToClient) {
			t.Errorf("%s: x-direction %v", m["name"], m["x-direction"])
		}
	}
}

func TestEveryErrorDataHasASchema(t *testing.T) {
	_, root := generated(t)
	links := root["x-error-data"].(map[string]any)
	for code, e := range errorDocs {
		link, ok := links[e.name]
		if ok != (e.data != nil) {
			t.Errorf("%d %s: x-error-data %v, data type %v", code, e.name, link, e.data)
			continue
		}
		if ok {
			if _, err := resolve(root, link.(map[string]any)["$ref"].(string)); err != nil {
				t.Errorf("%s: %v", e.name, err)
			}
		}
	}
	// -32602 has three shapes: a bad field, an unknown and a disabled runtime.
	s, err := resolve(root, "#/x-schemas/InvalidParamsData")
	if err != nil {
		t.Fatal(err)
	}
	var shapes []string
	for _, b := range s.(map[string]any)["anyOf"].([]any) {
		shapes = append(shapes, b.(map[string]any)["$ref"].(string))
	}
	if want := []string{"#/x-schemas/FieldErrorData", "#/x-schemas/UnknownRuntimeData", "#/x-schemas/DisabledRuntimeData"}; !slices.Equal(shapes, want) {
		t.Errorf("InvalidParamsData shapes %v, want %v", shapes, want)
	}
}

// TestBundleIsSelfContained checks the JSON Schema bundle: every schema of
// the document is a definition, and every $ref resolves inside the bundle.
func TestBundleIsSelfContained(t *testing.T) {
	files, root := generated(t)
	var bundle map[string]any
	if err := json.Unmarshal(files[BundleFile], &bundle); err != nil {
		t.Fatal(err)
	}
	defs := bundle["definitions"].(map[string]any)
	for _, part := range []any{root["components"].(map[string]any)["schemas"], root["x-schemas"]} {
		for name := range part.(map[string]any) {
			if _, ok := defs[name]; !ok {
				t.Errorf("%s is not in the bundle", name)
			}
		}
	}
	walk(bundle, "#", func(ptr string, obj map[string]any) {
		if ref, ok := obj["$ref"].(string); ok {
			if !strings.HasPrefix(ref, "#/definitions/") {
				t.Errorf("%s: $ref %s points outside the bundle", ptr, ref)
			} else if _, err := resolve(bundle, ref); err != nil {
				t.Errorf("%s: %v", ptr, err)
			}
		}
	})
	for _, m := range rpc.Methods {
		if !strings.Contains(string(files[TableFile]), "| `"+m.Name+"` | client-to-server |") {
			t.Errorf("%s is not in %s", m.Name, TableFile)
		}
	}
	for _, e := range rpc.Events {
		if !strings.Contains(string(files[TableFile]), "| `"+rpc.EventPrefix+e.Type+"` | server-to-client |") {
			t.Errorf("%s is not in %s", e.Type, TableFile)
		}
	}
}
