package contracttests

// The iOS app's decoders, as ../shared/IOS-APP.md and docs/protocol.md
// describe them: a field the app requires must be present and of its type
// (an integer is a JSON number without a fraction, a string is never a
// number), or the whole response fails to decode. Optional fields are
// decoded when present, and must then be of their type too; unknown fields
// are ignored, as Swift's Decodable does.
//
// A shape is a Go struct of pointer fields: `app:"required"` marks those
// the app requires (a slice too: missing or null leaves it nil, [] does
// not). appDecode unmarshals (encoding/json refuses a string
// for an int, and 1.5 for an int) and then checks that every required
// pointer was filled, recursively through structs and slices.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// appDecode decodes raw into v as the app would, failing t if the app's
// decoder would fail.
func appDecode(t *testing.T, what string, raw json.RawMessage, v any) {
	t.Helper()
	if err := appDecodeErr(raw, v); err != nil {
		t.Fatalf("the app cannot decode %s: %v\n%s", what, err, clip(raw))
	}
}

func appDecodeErr(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return err
	}
	return appRequired(reflect.ValueOf(v).Elem(), "")
}

// appRequired reports the first required field of v left unset.
func appRequired(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return appRequired(v.Elem(), path)
	case reflect.Slice:
		for i := range v.Len() {
			if err := appRequired(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name := f.Name
			if tag := f.Tag.Get("json"); tag != "" {
				name = tag
			}
			fv := v.Field(i)
			if f.Tag.Get("app") == "required" && (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Slice) && fv.IsNil() {
				return fmt.Errorf("required field %s.%s is missing (or null)", path, name)
			}
			if err := appRequired(fv, path+"."+name); err != nil {
				return err
			}
		}
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

// appMessagesPage is workspace/session/messages as the app decodes it: a
// message's id is an Int (a string fails the whole page).
type appMessagesPage struct {
	SessionID *string      `json:"session_id"`
	Messages  []appMessage `json:"messages" app:"required"`
	Total     *int         `json:"total"`
	HasMore   *bool        `json:"has_more"`
}

type appMessage struct {
	ID        *int    `json:"id" app:"required"`
	SessionID *string `json:"session_id"`
	Type      *string `json:"type" app:"required"`
	UUID      *string `json:"uuid" app:"required"`
	Timestamp *string `json:"timestamp"`
	Message   *struct {
		Role    *string           `json:"role" app:"required"`
		Content []json.RawMessage `json:"content"`
	} `json:"message" app:"required"`
}

// TestAppDecodeIsStrict: the decoder refuses what the app refuses, so the
// tests that use it can fail.
func TestAppDecodeIsStrict(t *testing.T) {
	ok := `{"messages":[{"id":3,"type":"user","uuid":"u","message":{"role":"user","content":[]}}]}`
	if err := appDecodeErr(json.RawMessage(ok), &appMessagesPage{}); err != nil {
		t.Fatalf("a valid page: %v", err)
	}
	for name, bad := range map[string]string{
		"string id":       `{"messages":[{"id":"m1","type":"user","uuid":"u","message":{"role":"user"}}]}`,
		"fractional id":   `{"messages":[{"id":1.5,"type":"user","uuid":"u","message":{"role":"user"}}]}`,
		"missing id":      `{"messages":[{"type":"user","uuid":"u","message":{"role":"user"}}]}`,
		"null id":         `{"messages":[{"id":null,"type":"user","uuid":"u","message":{"role":"user"}}]}`,
		"missing role":    `{"messages":[{"id":1,"type":"user","uuid":"u","message":{}}]}`,
		"missing list":    `{"total":0}`,
		"number for uuid": `{"messages":[{"id":1,"type":"user","uuid":7,"message":{"role":"user"}}]}`,
	} {
		if err := appDecodeErr(json.RawMessage(bad), &appMessagesPage{}); err == nil {
			t.Errorf("%s: decoded %s", name, bad)
		}
	}
}
