package openrpc

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"

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
	Methods    []method   `json:"methods"`
	Components components `json:"components"`
}

type info struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Version     string `json:"version"`
}

type method struct {
	Name           string              `json:"name"`
	Summary        string              `json:"summary"`
	ParamStructure string              `json:"paramStructure"`
	Params         []contentDescriptor `json:"params"`
	Result         *contentDescriptor  `json:"result,omitempty"`
	Errors         []reference         `json:"errors,omitempty"`
	Notification   bool                `json:"x-notification,omitempty"`
	Direction      string              `json:"x-direction,omitempty"`
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
	Code    int64             `json:"code"`
	Message string            `json:"message"`
	Data    map[string]string `json:"data,omitempty"`
}

const description = "cdevd lets remote clients drive AI coding-agent CLIs over WebSocket and JSON-RPC 2.0. " +
	"Server notifications are the methods named event/<type>, marked x-notification and x-direction server-to-client; " +
	"they have no result. Objects may gain fields: clients ignore the ones they do not know."

// Generate builds the OpenRPC document of rpc.Methods and rpc.Events as
// indented JSON with a trailing newline. The bytes are deterministic.
func Generate() ([]byte, error) {
	r := newReflector()
	doc := document{
		OpenRPC: "1.3.2",
		Info:    info{Title: "cdevd", Description: description, Version: rpc.ProtocolVersion},
		Components: components{
			Schemas: r.components,
			Errors:  map[string]errorObject{},
		},
	}
	for code, e := range errorDocs {
		doc.Components.Errors[e.name] = errorObject{Code: code, Message: e.message, Data: e.data}
	}

	for _, spec := range rpc.Methods {
		m, err := r.method(spec.Name, spec.Summary, spec.Params)
		if err != nil {
			return nil, err
		}
		if spec.Result == nil {
			m.Notification, m.Direction = true, clientToServer
		} else {
			s, err := r.schemaOf(reflect.TypeOf(spec.Result))
			if err != nil {
				return nil, fmt.Errorf("%s result: %w", spec.Name, err)
			}
			m.Result = &contentDescriptor{Name: spec.Name + "Result", Required: true, Schema: s}
		}
		for _, code := range spec.Errors {
			e, ok := errorDocs[code]
			if !ok {
				return nil, fmt.Errorf("%s: error code %d is not documented in errorDocs", spec.Name, code)
			}
			m.Errors = append(m.Errors, reference{"#/components/errors/" + e.name})
		}
		doc.Methods = append(doc.Methods, m)
	}
	for _, spec := range rpc.Events {
		m, err := r.method(rpc.EventPrefix+spec.Type, spec.Summary, spec.Params)
		if err != nil {
			return nil, err
		}
		m.Notification, m.Direction = true, serverToClient
		doc.Methods = append(doc.Methods, m)
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
	m := method{Name: name, Summary: summary, ParamStructure: "by-name", Params: []contentDescriptor{}}
	for _, f := range fields {
		m.Params = append(m.Params, contentDescriptor{Name: f.name, Description: f.doc, Required: f.required, Schema: f.schema})
	}
	return m, nil
}
