package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

// encodeFileGet writes what encoding/json writes (without HTML escaping, as
// the transport encodes), for text and base64 answers with every field set:
// a field added to rpc.FileGetResult and not to encodeFileGet fails here.
func TestEncodeFileGetIsEncodingJSON(t *testing.T) {
	for _, res := range []rpc.FileGetResult{
		{Path: "dir/é \"q\".txt", Content: "line\n\t<tag> & \"quoted\" \\ \x01 \xff \u2028" + strings.Repeat("x", 100),
			Encoding: rpc.EncodingUTF8, Size: 1 << 40, Truncated: true, IsSensitive: true},
		{Path: "bin", Content: "AAEC/w==", Encoding: rpc.EncodingBase64, Size: 4, IsBinary: true},
		{},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			t.Fatal(err)
		}
		if got := encodeFileGet(res); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Errorf("encodeFileGet = %s\nencoding/json = %s", got, want.Bytes())
		}
	}
}
