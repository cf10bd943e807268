package openrpc

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// Document is the committed openrpc.json, the bytes rpc.discover returns.
//
//go:embed openrpc.json
var Document []byte

// Directions of a notification, in its "x-direction" extension.
const (
	serverToClient = "server-to-client"
	clientToServer = "client-to-server"
)

type document struct {
	OpenRPC    string     `json:"openrpc"`
	Info       info       `json:"info"`
	Servers    []server   `json:"servers"`
	Methods    []method   `json:"methods"`
	Components components `json:"components"`
	// XNotifications lists what the server sends (event/<type>), shaped
	// like methods. They are not in methods, where every tool takes a
	// method for something a client calls (@open-rpc/generator writes a
	// function that sends each one).
	XNotifications []method `json:"x-notifications"`
	// XSchemas holds the schemas OpenRPC has no standard place for: the
	// payload of each server notification, ServerNotification, each
	// error's data and each method's whole params object. Standard
	// positions never refer to them, so that OpenRPC tools see no unused
	// component; the x- extensions of methods and errors do.
	XSchemas map[string]*schema `json:"x-schemas"`
	// XErrorData links each error (by its name in components.errors) to
	// the schema of its data: @open-rpc/meta-schema allows no extension on
	// an error object, and its data is an example value, not a schema.
	XErrorData map[string]reference `json:"x-error-data"`
}

type info struct {
	Title       string  `json:"title"`
	Description string  `json:"description"`
	Version     string  `json:"version"`
	License     license `json:"license"`
}

type license struct {
	Name string `json:"name"`
}

type server struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	Summary     string `json:"summary"`
	Description string `json:"description"`
}

type method struct {
	Name           string              `json:"name"`
	Summary        string              `json:"summary"`
	ParamStructure string              `json:"paramStructure"`
	Params         []contentDescriptor `json:"params"`
	Result         *contentDescriptor  `json:"result,omitempty"`
	Errors         []reference         `json:"errors,omitempty"`
	Examples       []examplePairing    `json:"examples,omitempty"`
	// Notification marks a method without a reply; Direction says who
	// sends it. Tools that know neither still see no result, and the
	// summary of every event/<type> says the server sends it.
	Notification bool      `json:"x-notification,omitempty"`
	Direction    string    `json:"x-direction"`
	ParamsSchema reference `json:"x-params-schema"`
}

type contentDescriptor struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required"`
	Schema      *schema `json:"schema"`
}

type reference struct {
	Ref string `json:"$ref"`
}

type components struct {
	Schemas map[string]*schema     `json:"schemas"`
	Errors  map[string]errorObject `json:"errors"`
}

type errorObject struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

const xSchemasPrefix = "#/x-schemas/"

// description is the rules a client needs; tools show it as the document's
// introduction.
const description = `cdevd lets remote clients drive AI coding-agent CLIs over WebSocket and JSON-RPC 2.0.

Connecting: open a WebSocket to ws://HOST:PORT/ws (cdevd serve prints the URL; default 127.0.0.1:16180). Present the token (cdevd token) as the header "Authorization: Bearer TOKEN", or, where headers cannot be set (browsers), as the subprotocol "cdevd.bearer.TOKEN" offered together with "cdevd" (the server selects "cdevd", never echoing the token). The token is the owner's (cdevd token) or a paired device's access token (cdev_s_…, from the HTTP pairing API: POST /api/auth/exchange, renewed with /api/auth/refresh; see docs/protocol.md); initialize's device names which, and its scope: a watch device gets -32003 from methods that act. A connection without a valid token is refused.

Order: call initialize first and wait for its reply; any other method before it fails with -32002. initialize returns the runtime registry: which runtimes exist, whether each can be used and which methods to call.

Requests: params are passed by name. Requests on one connection run concurrently, so replies may come in another order than the requests: match them by id. Batches (arrays of requests) are accepted and answered with an array. A connection with too many requests in flight gets -32001: retry later.

Notifications: what the server sends, event/<type>, is listed in x-notifications, not in methods (x-direction server-to-client, x-notification); clients never call them and never answer them. Each one's params is the schema named in its x-params-schema; x-schemas.ServerNotification is the union of all of them, keyed by method. Session events carry seq (per session, from 1) and epoch; workspace/session/watch with since_seq replays what a client missed. event/heartbeat comes every 25 s: a client that hears nothing for 45 s should reconnect.

Errors: each method lists the codes it can return; the schema of each error's data is named in x-error-data (by the error's name in components.errors).

Evolution: objects may gain fields and enums may gain values: clients must ignore fields they do not know and accept values they do not know. Every timestamp is RFC 3339 in UTC with milliseconds: 2026-01-15T09:30:12.345Z.`

// Generate builds the OpenRPC document of rpc.Methods and rpc.Events as
// indented JSON with a trailing newline. The bytes are deterministic.
func Generate() ([]byte, error) {
	files, err := GenerateFiles()
	if err != nil {
		return nil, err
	}
	return files[DocumentFile], nil
}

// The files Generate writes, next to each other.
const (
	DocumentFile = "openrpc.json"
	BundleFile   = "cdevd.schema.json"
	TableFile    = "methods.md"
)

// GenerateFiles builds the OpenRPC document, a plain JSON Schema bundle of
// every type, and a table of the methods, by file name.
func GenerateFiles() (map[string][]byte, error) {
	r := newReflector()
	doc := document{
		OpenRPC: "1.3.2",
		Info: info{Title: "cdevd", Description: description, Version: rpc.ProtocolVersion,
			License: license{Name: "Proprietary"}},
		Servers: []server{{Name: "local", URL: "ws://127.0.0.1:16180/ws", Summary: "cdevd serve with its default address",
			Description: "WebSocket; the token as an Authorization: Bearer header or as the subprotocol cdevd.bearer.TOKEN beside cdevd."}},
		Components: components{Errors: map[string]errorObject{}},
		XErrorData: map[string]reference{},
	}
	for code, e := range errorDocs {
		doc.Components.Errors[e.name] = errorObject{Code: code, Message: e.message}
		if e.data != nil {
			ref, err := r.schemaOf(e.data)
			if err != nil {
				return nil, fmt.Errorf("%s data: %w", e.name, err)
			}
			doc.XErrorData[e.name] = reference{ref.Ref}
		}
	}

	for _, spec := range rpc.Methods {
		m, err := r.method(spec.Name, spec.Summary, spec.Params)
		if err != nil {
			return nil, err
		}
		m.Direction = clientToServer
		if spec.Result == nil {
			m.Notification = true
		} else {
			s, err := r.schemaOf(reflect.TypeOf(spec.Result))
			if err != nil {
				return nil, fmt.Errorf("%s result: %w", spec.Name, err)
			}
			m.Result = &contentDescriptor{Name: spec.Name + "Result", Required: true, Schema: s}
			for _, code := range errorCodes(spec) {
				e, ok := errorDocs[code]
				if !ok {
					return nil, fmt.Errorf("%s: error code %d is not documented in errorDocs", spec.Name, code)
				}
				m.Errors = append(m.Errors, reference{"#/components/errors/" + e.name})
			}
		}
		if m.Examples, err = examplesOf(spec, m.Params); err != nil {
			return nil, err
		}
		doc.Methods = append(doc.Methods, m)
	}
	notification := &schema{Title: "ServerNotification",
		Description: "Every notification the server sends; switch on method.", OneOf: []*schema{}}
	for _, spec := range rpc.Events {
		m, err := r.method(rpc.EventPrefix+spec.Type, "Sent by the server: "+spec.Summary, spec.Params)
		if err != nil {
			return nil, err
		}
		m.Notification, m.Direction = true, serverToClient
		doc.XNotifications = append(doc.XNotifications, m)

		name := camel(spec.Type) + "Notification"
		r.components[name] = &schema{Title: name, Type: "object", Required: []string{"jsonrpc", "method", "params"},
			Properties: map[string]*schema{
				"jsonrpc": {Type: "string", Enum: []string{"2.0"}},
				"method":  {Type: "string", Enum: []string{m.Name}},
				"params":  {Ref: m.ParamsSchema.Ref},
			}}
		notification.OneOf = append(notification.OneOf, &schema{Ref: schemaRefPrefix + name})
	}
	r.components[notification.Title] = notification

	bundle, err := bundleOf(r.components)
	if err != nil {
		return nil, err
	}
	table, err := tableOf(doc)
	if err != nil {
		return nil, err
	}
	// Partition: what standard positions reach stays a component.
	used := map[string]bool{}
	for _, m := range doc.Methods {
		for _, p := range m.Params {
			reach(r.components, p.Schema, used)
		}
		if m.Result != nil {
			reach(r.components, m.Result.Schema, used)
		}
	}
	doc.Components.Schemas, doc.XSchemas = map[string]*schema{}, map[string]*schema{}
	move := func(ref string) string {
		name, ok := strings.CutPrefix(ref, schemaRefPrefix)
		if ok && !used[name] {
			return xSchemasPrefix + name
		}
		return ref
	}
	for name, s := range r.components {
		if used[name] {
			doc.Components.Schemas[name] = rewrite(s, move)
		} else {
			doc.XSchemas[name] = rewrite(s, move)
		}
	}
	for _, list := range [][]method{doc.Methods, doc.XNotifications} {
		for i := range list {
			m := &list[i]
			m.ParamsSchema.Ref = move(m.ParamsSchema.Ref)
			for j := range m.Params {
				m.Params[j].Schema = rewrite(m.Params[j].Schema, move)
			}
		}
	}
	for name, ref := range doc.XErrorData {
		doc.XErrorData[name] = reference{move(ref.Ref)}
	}
	out, err := encode(doc)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{DocumentFile: out, BundleFile: bundle, TableFile: table}, nil
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// errorCodes lists every code a call of spec can get, in code order.
func errorCodes(spec rpc.MethodSpec) []int64 {
	codes := append(commonErrors(spec.Name), spec.Errors...)
	slices.Sort(codes)
	slices.Reverse(codes)
	return slices.Compact(codes)
}

// camel turns an event type such as pty_state into PtyState.
func camel(s string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(s, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// reach marks the components s refers to, transitively.
func reach(all map[string]*schema, s *schema, used map[string]bool) {
	walkSchema(s, func(s *schema) {
		name, ok := strings.CutPrefix(s.Ref, schemaRefPrefix)
		if !ok || used[name] {
			return
		}
		used[name] = true
		reach(all, all[name], used)
	})
}

// walkSchema visits s and every schema inside it.
func walkSchema(s *schema, visit func(*schema)) {
	if s == nil {
		return
	}
	visit(s)
	walkSchema(s.Items, visit)
	walkSchema(s.AdditionalProperties, visit)
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		walkSchema(s.Properties[k], visit)
	}
	for _, list := range [][]*schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, e := range list {
			walkSchema(e, visit)
		}
	}
}

// rewrite returns a deep copy of s with every $ref passed through f.
func rewrite(s *schema, f func(string) string) *schema {
	if s == nil {
		return nil
	}
	c := *s
	if c.Ref != "" {
		c.Ref = f(c.Ref)
	}
	c.Items = rewrite(s.Items, f)
	c.AdditionalProperties = rewrite(s.AdditionalProperties, f)
	if s.Properties != nil {
		c.Properties = map[string]*schema{}
		for k, p := range s.Properties {
			c.Properties[k] = rewrite(p, f)
		}
	}
	each := func(list []*schema) []*schema {
		if list == nil {
			return nil
		}
		out := make([]*schema, len(list))
		for i, e := range list {
			out[i] = rewrite(e, f)
		}
		return out
	}
	c.AllOf, c.AnyOf, c.OneOf = each(s.AllOf), each(s.AnyOf), each(s.OneOf)
	return &c
}

// method describes a method whose params are passed by name: each top-level
// field of the params struct is one content descriptor. The params struct is
// also a component, for clients that want the whole object's schema.
func (r *reflector) method(name, summary string, params any) (method, error) {
	t := reflect.TypeOf(params)
	if t == nil || t.Kind() != reflect.Struct {
		return method{}, fmt.Errorf("%s: params %T is not a struct", name, params)
	}
	if _, err := r.schemaOf(t); err != nil {
		return method{}, fmt.Errorf("%s params: %w", name, err)
	}
	fields, err := r.fields(t)
	if err != nil {
		return method{}, fmt.Errorf("%s params: %w", name, err)
	}
	m := method{Name: name, Summary: summary, ParamStructure: "by-name", Params: []contentDescriptor{},
		ParamsSchema: reference{schemaRefPrefix + schemaName(t)}}
	// Required params first: OpenRPC forbids a required one after an
	// optional one (positions matter to by-position clients).
	slices.SortStableFunc(fields, func(a, b field) int {
		switch {
		case a.required == b.required:
			return 0
		case a.required:
			return -1
		}
		return 1
	})
	for _, f := range fields {
		m.Params = append(m.Params, contentDescriptor{Name: f.name, Description: f.doc, Required: f.required, Schema: f.schema})
	}
	return m, nil
}
