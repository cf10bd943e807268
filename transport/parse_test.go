package transport

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/cdevd/cdevd/rpc"
)

// parseRequestByMap is parseRequest as it was before scanMembers: the
// object decoded into a map. The scan must agree with it on every input.
func parseRequestByMap(raw json.RawMessage) (request, *rpc.Error) {
	if !utf8.Valid(raw) {
		return request{}, invalidRequest("not valid UTF-8")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return request{}, invalidRequest("not an object")
	}
	var req request
	if id, ok := fields["id"]; ok {
		if !validID(id) {
			return request{}, invalidRequest("id must be a string, a number or null")
		}
		req.id = id
	}
	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != "2.0" {
		return req, invalidRequest(`jsonrpc must be "2.0"`)
	}
	m, ok := fields["method"]
	if !ok || m[0] != '"' {
		return req, invalidRequest("method must be a string")
	}
	_ = json.Unmarshal(m, &req.method)
	if p, ok := fields["params"]; ok {
		if p[0] != '{' && p[0] != '[' {
			return req, invalidRequest("params must be an object or an array")
		}
		req.params = p
	}
	return req, nil
}

var parseSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"workspace/list","params":{}}`,
	` { "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "x\u00e9" , "params" : [1,{"a":[]}] } `,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"a","method":"b"}`,
	`{"JSONRPC":"2.0","ID":1,"METHOD":"echo"}`,
	`{"jsonrpc":"2.0","\u0069d":7,"method":"echo"}`,
	`{"jsonrpc":"2\u002e0","id":null,"method":"echo","params":null}`,
	`{"jsonrpc":"2.0","id":-1.5e3,"method":"echo","params":"x"}`,
	`{"jsonrpc":"2.0","id":{},"method":"echo"}`,
	`{"jsonrpc":"2.0","id":true,"method":7}`,
	`{"jsonrpc":"2.0","method":"a\\b","params":{"s":"}]\"{["}}`,
	`{}`, `[]`, `null`, `"str"`, `12`, `{"a":{"b":{"c":[1,2,{"d":"e"}]}},"jsonrpc":"2.0","method":"m"}`,
	`{"jsonrpc":"2.0","id":"\ud800","method":"\udc00"}`,
}

func sameRequest(a, b request) bool {
	return bytes.Equal(a.id, b.id) && (a.id == nil) == (b.id == nil) && a.method == b.method &&
		bytes.Equal(a.params, b.params) && (a.params == nil) == (b.params == nil)
}

func checkParse(t *testing.T, raw []byte) {
	if !json.Valid(raw) {
		return // parseRequest is only given valid JSON
	}
	got, gerr := parseRequest(raw)
	want, werr := parseRequestByMap(raw)
	if !sameRequest(got, want) || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Message != werr.Message) {
		t.Fatalf("%s:\nscan %+v %v\nmap  %+v %v", raw, got, gerr, want, werr)
	}
}

func TestParseRequestMatchesMap(t *testing.T) {
	for _, s := range append(parseSeeds, fuzzSeeds...) {
		checkParse(t, []byte(s))
	}
}

// FuzzParseRequest: the scan and the map agree on every valid JSON value.
func FuzzParseRequest(f *testing.F) {
	for _, s := range append(parseSeeds, fuzzSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParse)
}

// BenchmarkParseRequest parses a typical request: the part of a cheap
// request's cost that scanMembers is.
func BenchmarkParseRequest(b *testing.B) {
	raw := []byte(`{"jsonrpc":"2.0","id":42,"method":"session/messages","params":{"session_id":"3f2a1c9e-1b2d-4c5e-8f90-a1b2c3d4e5f6","agent_type":"claude","limit":50,"offset":0,"order":"desc"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseRequest(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// TestScanLeavesToMap: the envelope schema refuses what only the map reads
// rightly (a repeated member, whose last value counts; a key escaped, not
// ASCII, or of ours in another case), and the request parsed then is the
// map's.
func TestScanLeavesToMap(t *testing.T) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
		`{"jsonrpc":"2.0","\u0069d":7,"method":"echo"}`,
		`{"jsonrpc":"2.0","ID":7,"method":"echo"}`,
		`{"jsonrpc":"2.0","Method":"x","method":"echo"}`,
		`{"jsonrpc":"2.0","id":7,"method":"echo","ｉd":8}`,
		`[{"jsonrpc":"2.0","method":"echo"}]`,
		`"str"`,
	} {
		if _, ok := scanMembers([]byte(s)); ok {
			t.Errorf("%s: the schema read it, want it left to the map", s)
		}
		checkParse(t, []byte(s))
	}
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"echo","params":{"id":1,"ID":2}}`,
		` {"x":[1,{"method":2}], "jsonrpc":"2.0","id":null,"method":"echo"} `,
	} {
		if _, ok := scanMembers([]byte(s)); !ok {
			t.Errorf("%s: left to the map, want the schema to read it", s)
		}
		checkParse(t, []byte(s))
	}
}
