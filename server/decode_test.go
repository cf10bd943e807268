package server

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
)

// FuzzDecodeParams decodes arbitrary params into every method's params
// type: the result is a value or a -32602 whose data names the field and
// the reason, never a panic or another code.
func FuzzDecodeParams(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, ``, ` `, `[]`, `[1]`, `"x"`, `3`,
		`{"workspace_id":"w","session_id":"s","agent_type":"claude","prompt":"hi","limit":5,"offset":1,"order":"desc"}`,
		`{"workspace_id":1}`, `{"limit":"5"}`, `{"limit":1e400}`, `{"since_seq":-1}`, `{"limit":-9223372036854775809}`,
		`{"clientInfo":{"name":"n","version":"v"},"capabilities":{"optOutNotificationMethods":["event/x",1]}}`,
		`{"path":"/tmp","create_if_missing":"yes"}`, `{"yolo_mode":1}`, `{"permission_mode":{}}`,
		`{"workspace_id":"w"`, `{"a":` + "\"\xff\"}", `{"prompt":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	types := make([]reflect.Type, 0, len(rpc.Methods))
	for _, m := range rpc.Methods {
		if m.Params != nil {
			types = append(types, reflect.TypeOf(m.Params))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, typ := range types {
			err := decode(raw, reflect.New(typ).Interface())
			if err == nil {
				continue
			}
			var rerr *rpc.Error
			if !errors.As(err, &rerr) || rerr.Code != rpc.CodeInvalidParams {
				t.Fatalf("%s from %q: %v, want -32602", typ, raw, err)
			}
			data, ok := rerr.Data.(map[string]any)
			if !ok || data["field"] == "" || data["reason"] == "" {
				t.Fatalf("%s from %q: data %#v does not name the field and reason", typ, raw, rerr.Data)
			}
			b, err := json.Marshal(rerr)
			if err != nil || !utf8.Valid(b) {
				t.Fatalf("%s from %q: error %q does not encode: %v", typ, raw, b, err)
			}
		}
	})
}
