package stdiorpc

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"
)

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// FuzzReader feeds arbitrary bytes as the CLI's output: the peer must not
// panic, must answer or skip every line, and every Call must end once the
// output does.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		`{"id":1,"result":{"ok":true}}` + "\n",
		`{"error":{"code":-32600,"message":"x"},"id":2}` + "\n",
		`{"method":"item/commandExecution/requestApproval","id":0,"params":{}}` + "\n",
		`{"method":"note"}` + "\n" + `{"id":"1","result":null}`,
		"not json\n[1]\n{}\n\r\n",
		`{"id":{"a":1},"method":"x"}` + "\n" + `{"id":1e400,"result":1}`,
		string(make([]byte, 300)) + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, w := io.Pipe()
		p := New(r, nopWriteCloser{io.Discard}, Handlers{
			OnRequest:      func(req *Request) { _ = req.Reply(json.RawMessage(`{}`)) },
			OnNotification: func(string, json.RawMessage) {},
			OnError:        func(error) {},
		}, Options{MaxLine: 256})
		calls := make([]<-chan error, 2)
		for i := range calls {
			calls[i] = goCall(p, context.Background(), "x", nil, new(any))
		}
		_, _ = w.Write(data)
		_ = w.Close()
		for _, c := range calls {
			select {
			case <-c:
			case <-time.After(waitFor):
				t.Fatal("a Call did not end after the output ended")
			}
		}
		_ = p.Close()
	})
}
