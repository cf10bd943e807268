package openrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// docURL names the document as a schema resource; its "#/components/..."
// references resolve inside it.
const docURL = "urn:cdevd:openrpc"

// Validator checks responses and notifications against the document.
type Validator struct {
	methods map[string]*methodSchemas
	// errorData is the schema of each error code's data (x-error-data);
	// a code without one carries no data.
	errorData map[int64]*jsonschema.Schema
}

type methodSchemas struct {
	serverToClient bool
	params         []paramSchema
	result         *jsonschema.Schema // nil for notifications
}

type paramSchema struct {
	name     string
	required bool
	schema   *jsonschema.Schema
}

// NewValidator compiles the schemas of every method of an OpenRPC document
// built like Generate's: by-name params given inline, not as references.
func NewValidator(doc []byte) (*Validator, error) {
	type outlineMethod struct {
		Name   string `json:"name"`
		Params []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"params"`
		Result    *struct{} `json:"result"`
		Direction string    `json:"x-direction"`
	}
	var outline struct {
		Methods       []outlineMethod `json:"methods"`
		Notifications []outlineMethod `json:"x-notifications"`
		Components    struct {
			Errors map[string]struct {
				Code int64 `json:"code"`
			} `json:"errors"`
		} `json:"components"`
		ErrorData map[string]struct {
			Ref string `json:"$ref"`
		} `json:"x-error-data"`
	}
	if err := json.Unmarshal(doc, &outline); err != nil {
		return nil, fmt.Errorf("openrpc: parse document: %w", err)
	}
	resource, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("openrpc: parse document: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7) // the dialect of OpenRPC 1.3 schemas
	c.AssertFormat()
	if err := c.AddResource(docURL, resource); err != nil {
		return nil, err
	}

	v := &Validator{methods: map[string]*methodSchemas{}, errorData: map[int64]*jsonschema.Schema{}}
	for name, link := range outline.ErrorData {
		e, ok := outline.Components.Errors[name]
		if !ok {
			return nil, fmt.Errorf("openrpc: x-error-data names %s, which is not in components.errors", name)
		}
		if v.errorData[e.Code], err = c.Compile(docURL + link.Ref); err != nil {
			return nil, fmt.Errorf("openrpc: %s data: %w", name, err)
		}
	}
	for _, list := range []struct {
		at      string
		methods []outlineMethod
	}{{"methods", outline.Methods}, {"x-notifications", outline.Notifications}} {
		for i, m := range list.methods {
			if _, dup := v.methods[m.Name]; dup {
				return nil, fmt.Errorf("openrpc: method %s listed twice", m.Name)
			}
			ms := &methodSchemas{serverToClient: m.Direction == serverToClient}
			for j, p := range m.Params {
				if p.Name == "" {
					return nil, fmt.Errorf("openrpc: %s: param %d is not an inline content descriptor", m.Name, j)
				}
				s, err := c.Compile(fmt.Sprintf("%s#/%s/%d/params/%d/schema", docURL, list.at, i, j))
				if err != nil {
					return nil, fmt.Errorf("openrpc: %s param %s: %w", m.Name, p.Name, err)
				}
				ms.params = append(ms.params, paramSchema{p.Name, p.Required, s})
			}
			if m.Result != nil {
				if ms.result, err = c.Compile(fmt.Sprintf("%s#/%s/%d/result/schema", docURL, list.at, i)); err != nil {
					return nil, fmt.Errorf("openrpc: %s result: %w", m.Name, err)
				}
			}
			v.methods[m.Name] = ms
		}
	}
	return v, nil
}

// ValidateResult checks the result of a call to method.
func (v *Validator) ValidateResult(method string, result json.RawMessage) error {
	m, err := v.method(method)
	if err != nil {
		return err
	}
	if m.result == nil {
		return fmt.Errorf("%s is a notification: it has no result", method)
	}
	if err := validate(m.result, result); err != nil {
		return fmt.Errorf("%s result: %w", method, err)
	}
	return nil
}

// ValidateError checks an error's data against the schema of its code;
// data is the raw data member, empty when the error had none.
func (v *Validator) ValidateError(code int64, data json.RawMessage) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil // data is optional in every error
	}
	s, ok := v.errorData[code]
	if !ok {
		return fmt.Errorf("error %d carries data %s, but the document gives it none", code, data)
	}
	if err := validate(s, data); err != nil {
		return fmt.Errorf("error %d data: %w", code, err)
	}
	return nil
}

// ValidateNotification checks the params of a notification the server sent
// (method is event/<type>).
func (v *Validator) ValidateNotification(method string, params json.RawMessage) error {
	m, err := v.method(method)
	if err != nil {
		return err
	}
	if !m.serverToClient {
		return fmt.Errorf("%s is not a server notification", method)
	}
	return m.validateParams(method, params)
}

// ValidateParams checks the params of a call or notification a client sends.
func (v *Validator) ValidateParams(method string, params json.RawMessage) error {
	m, err := v.method(method)
	if err != nil {
		return err
	}
	if m.serverToClient {
		return fmt.Errorf("%s is a server notification, not a client method", method)
	}
	return m.validateParams(method, params)
}

func (v *Validator) method(name string) (*methodSchemas, error) {
	m, ok := v.methods[name]
	if !ok {
		return nil, fmt.Errorf("method %s is not in the document", name)
	}
	return m, nil
}

// validateParams checks by-name params: required ones present, each present
// one valid. Unknown names pass, as receivers ignore them.
func (m *methodSchemas) validateParams(method string, params json.RawMessage) error {
	fields := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(params)) > 0 && !bytes.Equal(bytes.TrimSpace(params), []byte("null")) {
		if err := json.Unmarshal(params, &fields); err != nil {
			return fmt.Errorf("%s params: want an object of named params: %w", method, err)
		}
	}
	var errs []error
	for _, p := range m.params {
		raw, ok := fields[p.name]
		if !ok {
			if p.required {
				errs = append(errs, fmt.Errorf("%s params: missing required %s", method, p.name))
			}
			continue
		}
		if err := validate(p.schema, raw); err != nil {
			errs = append(errs, fmt.Errorf("%s params: %s: %w", method, p.name, err))
		}
	}
	return errors.Join(errs...)
}

func validate(s *jsonschema.Schema, raw json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(v)
}
