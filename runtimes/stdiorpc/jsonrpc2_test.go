package stdiorpc

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// These pin the sourcegraph/jsonrpc2 behaviours that made this package
// write its own peer (see doc.go). If one starts failing, the library may
// fit now.

func jsonrpc2Conn(t *testing.T, h jsonrpc2.Handler) (*jsonrpc2.Conn, io.Writer, *bufio.Reader) {
	t.Helper()
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	rwc := struct {
		io.Reader
		io.Writer
		io.Closer
	}{outR, inW, closers{outR, inW}}
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(rwc), h,
		jsonrpc2.SetLogger(discardLogger{}))
	t.Cleanup(func() {
		_ = conn.Close()
		_ = outW.Close()
		_ = inR.Close()
	})
	return conn, outW, bufio.NewReader(inR)
}

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		_ = c.Close()
	}
	return nil
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}

func TestJSONRPC2ClosesOnAGarbageLine(t *testing.T) {
	conn, out, _ := jsonrpc2Conn(t, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
		return nil, nil
	}))
	_, _ = io.WriteString(out, "not json\n")
	select {
	case <-conn.DisconnectNotify():
	case <-time.After(waitFor):
		t.Fatal("jsonrpc2 survived a garbage line: it may fit now")
	}
}

func TestJSONRPC2CannotEchoANegativeID(t *testing.T) {
	conn, out, in := jsonrpc2Conn(t, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
		return 1, nil
	}))
	_ = conn
	_, _ = io.WriteString(out, `{"jsonrpc":"2.0","id":-1,"method":"x"}`+"\n")
	line, err := in.ReadString('}')
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(line, `"id":-1`) || !strings.Contains(line, `"id":18446744073709551615`) {
		t.Fatalf("reply %s: jsonrpc2 may echo ids exactly now", line)
	}
}
