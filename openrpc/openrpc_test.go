package openrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

func generate(t *testing.T) []byte {
	t.Helper()
	b, err := Generate()
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return b
}

func TestDocumentUpToDate(t *testing.T) {
	files, err := GenerateFiles()
	if err != nil {
		t.Fatalf("GenerateFiles: %v", err)
	}
	if len(files) != 3 {
		t.Errorf("%d files generated, want the document, the bundle and the table", len(files))
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		want := files[name]
		if *update {
			if err := os.WriteFile(name, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		committed, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%v: run `go generate ./openrpc`", err)
		}
		if !bytes.Equal(committed, want) {
			t.Errorf("%s is stale (%s): run `go generate ./openrpc` or `go test ./openrpc -update`",
				name, firstDiff(committed, want))
		}
	}
	if !bytes.Equal(Document, files[DocumentFile]) && !*update {
		t.Error("the embedded Document is not the generated one")
	}
}

// firstDiff names the first line where the committed and generated documents differ.
func firstDiff(committed, generated []byte) string {
	a, b := strings.Split(string(committed), "\n"), strings.Split(string(generated), "\n")
	for i := range max(len(a), len(b)) {
		var la, lb string
		if i < len(a) {
			la = a[i]
		}
		if i < len(b) {
			lb = b[i]
		}
		if la != lb {
			return fmt.Sprintf("line %d: committed %q, generated %q", i+1, la, lb)
		}
	}
	return "same lines"
}

func TestGenerateIsDeterministic(t *testing.T) {
	if a, b := generate(t), generate(t); !bytes.Equal(a, b) {
		t.Fatalf("two runs differ at %s", firstDiff(a, b))
	}
}

type param struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

// parsedDoc is the part of the document the structure tests read.
type parsedMethod struct {
	Name         string         `json:"name"`
	Params       []param        `json:"params"`
	Result       map[string]any `json:"result"`
	Errors       []reference    `json:"errors"`
	Notification bool           `json:"x-notification"`
	Direction    string         `json:"x-direction"`
}

type parsedDoc struct {
	Methods       []parsedMethod `json:"methods"`
	Notifications []parsedMethod `json:"x-notifications"`
	Components    struct {
		Schemas map[string]map[string]any `json:"schemas"`
		Errors  map[string]errorObject    `json:"errors"`
	} `json:"components"`
}

func TestEverySchemaIsTitledAndEveryRefResolves(t *testing.T) {
	b := generate(t)
	var root any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	var doc parsedDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for name, s := range doc.Components.Schemas {
		if s["title"] != name {
			t.Errorf("components.schemas.%s has title %v", name, s["title"])
		}
	}

	refs := 0
	walk(root, "#", func(ptr string, obj map[string]any) {
		if ref, ok := obj["$ref"].(string); ok {
			refs++
			if _, err := resolve(root, ref); err != nil {
				t.Errorf("%s: $ref %s: %v", ptr, ref, err)
			}
		}
		// A struct is described only as a component, with a title.
		if obj["properties"] != nil {
			if _, ok := obj["title"]; !ok {
				t.Errorf("%s: schema without a title", ptr)
			}
		}
	})
	if refs == 0 {
		t.Error("the document has no $ref at all")
	}
}

func walk(v any, ptr string, visit func(string, map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		visit(ptr, v)
		for k, e := range v {
			walk(e, ptr+"/"+k, visit)
		}
	case []any:
		for i, e := range v {
			walk(e, ptr+"/"+strconv.Itoa(i), visit)
		}
	}
}

// resolve follows a local JSON pointer such as #/components/schemas/Usage.
func resolve(root any, ref string) (any, error) {
	ptr, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("not a local reference")
	}
	v := root
	for _, tok := range strings.Split(ptr, "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not inside an object", tok)
		}
		if v, ok = obj[tok]; !ok {
			return nil, fmt.Errorf("no %q", tok)
		}
	}
	return v, nil
}

func TestEveryMethodAndEventIsDocumented(t *testing.T) {
	var doc parsedDoc
	if err := json.Unmarshal(generate(t), &doc); err != nil {
		t.Fatal(err)
	}
	byName := map[string]parsedMethod{}
	for _, m := range append(slices.Clone(doc.Methods), doc.Notifications...) {
		if _, dup := byName[m.Name]; dup {
			t.Errorf("method %s listed twice", m.Name)
		}
		byName[m.Name] = m
	}
	// Server notifications are not methods: tools take every method for
	// something a client calls.
	if len(doc.Methods) != len(rpc.Methods) || len(doc.Notifications) != len(rpc.Events) {
		t.Errorf("%d methods and %d notifications in the document, want %d and %d",
			len(doc.Methods), len(doc.Notifications), len(rpc.Methods), len(rpc.Events))
	}
	for _, m := range doc.Methods {
		if strings.HasPrefix(m.Name, rpc.EventPrefix) {
			t.Errorf("%s is in methods", m.Name)
		}
	}

	for _, spec := range rpc.Methods {
		m, ok := byName[spec.Name]
		if !ok {
			t.Errorf("method %s is missing", spec.Name)
			continue
		}
		if notification := spec.Result == nil; (m.Result == nil) != notification || m.Notification != notification {
			t.Errorf("%s: result %v, x-notification %v; want a result exactly when rpc.Methods has one", spec.Name, m.Result, m.Notification)
		}
		if spec.Result == nil && m.Direction != "client-to-server" {
			t.Errorf("%s: x-direction %q, want client-to-server", spec.Name, m.Direction)
		}
		var codes []int64
		for _, ref := range m.Errors {
			name, _ := strings.CutPrefix(ref.Ref, "#/components/errors/")
			codes = append(codes, doc.Components.Errors[name].Code)
		}
		// Every call can get the transport's and dispatch's errors; every
		// method but initialize needs initialize first.
		want := []int64{rpc.CodeParseError, rpc.CodeInvalidRequest, rpc.CodeMethodNotFound, rpc.CodeInvalidParams,
			rpc.CodeInternalError, rpc.CodeOverloaded}
		if spec.Name != rpc.MethodInitialize {
			want = append(want, rpc.CodeNotInitialized)
		}
		want = append(want, spec.Errors...)
		if spec.Result == nil {
			want = nil // a notification gets no reply, so no error
		}
		slices.Sort(want)
		if slices.Sort(codes); !slices.Equal(codes, slices.Compact(want)) {
			t.Errorf("%s: error codes %v, want %v", spec.Name, codes, want)
		}
		checkRequired(t, spec.Name, m.Params, spec.Params)
	}

	for _, spec := range rpc.Events {
		name := rpc.EventPrefix + spec.Type
		m, ok := byName[name]
		if !ok {
			t.Errorf("event %s is missing", name)
			continue
		}
		if m.Result != nil || !m.Notification || m.Direction != "server-to-client" {
			t.Errorf("%s: result %v, x-notification %v, x-direction %q; want a server-to-client notification",
				name, m.Result, m.Notification, m.Direction)
		}
		checkRequired(t, name, m.Params, spec.Params)
	}
}

// checkRequired compares the required params with what encoding/json writes
// for a zero value: exactly the fields without omitempty.
func checkRequired(t *testing.T, method string, params []param, zero any) {
	t.Helper()
	b, err := json.Marshal(zero)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	var required []string
	for _, p := range params {
		if p.Required {
			required = append(required, p.Name)
		}
	}
	want := slices.Sorted(maps.Keys(fields))
	if slices.Sort(required); !slices.Equal(required, want) {
		t.Errorf("%s: required params %v, want %v", method, required, want)
	}
}

// TestEveryErrorCodeIsDocumented reads rpc/errors.go so that a new Code
// constant cannot be added without documenting it.
func TestEveryErrorCodeIsDocumented(t *testing.T) {
	var doc parsedDoc
	if err := json.Unmarshal(generate(t), &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[int64]bool{}
	for name, e := range doc.Components.Errors {
		if e.Message == "" {
			t.Errorf("error %s has no message", name)
		}
		documented[e.Code] = true
	}

	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filepath.Join("..", "rpc", "errors.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, ident := range vs.Names {
				if !strings.HasPrefix(ident.Name, "Code") {
					continue
				}
				found++
				tv, err := types.Eval(fset, nil, token.NoPos, types.ExprString(vs.Values[i]))
				if err != nil {
					t.Fatalf("%s: %v", ident.Name, err)
				}
				code, _ := strconv.ParseInt(tv.Value.ExactString(), 10, 64)
				if _, ok := documented[code]; !ok {
					t.Errorf("rpc.%s (%d) is not in components.errors", ident.Name, code)
				}
			}
		}
	}
	if found != len(documented) {
		t.Errorf("rpc/errors.go has %d codes, components.errors %d", found, len(documented))
	}
}

// TestNodeValidation runs the reference OpenRPC tooling on the committed file:
// meta-schema validation and dereferencing of every $ref.
func TestNodeValidation(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: install Node.js, then run `npm ci` in the repository root")
	}
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@open-rpc", "schema-utils-js")); err != nil {
		t.Fatalf("@open-rpc/schema-utils-js is not installed: run `npm ci` in the repository root (%v)", err)
	}
	cmd := exec.Command(node, "openrpc/validate.mjs", "openrpc/openrpc.json")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node openrpc/validate.mjs: %v\n%s", err, out)
	}
}
