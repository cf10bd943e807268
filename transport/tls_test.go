package transport

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cdevd/cdevd/internal/tlsfiles"
	"github.com/cdevd/cdevd/internal/tlsfiles/tlstest"
)

// tlsServer is a Server run by Serve with TLS, as the daemon runs it with
// --tls-cert, and the CA its certificate comes from.
type tlsServer struct {
	*testServer
	ca         *tlstest.CA
	dir        string
	https, wss string
	trusting   *tls.Config // a client configuration that trusts ca
}

func startTLSServer(t *testing.T, cfg Config) *tlsServer {
	t.Helper()
	ca := tlstest.NewCA(t, "cdevd test CA")
	dir := t.TempDir()
	certFile, keyFile := ca.Issue(t, 1).Write(t, dir)
	kp, err := tlsfiles.Load(certFile, keyFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLS = kp.Config()
	s := startServer(t, cfg)
	return &tlsServer{testServer: s, ca: ca, dir: dir, https: "https://" + s.addr, wss: "wss://" + s.addr + "/ws",
		trusting: &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}}
}

func (s *tlsServer) httpClient(t *testing.T, cfg *tls.Config) *http.Client {
	tr := &http.Transport{TLSClientConfig: cfg}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func (s *tlsServer) dialWSS(t *testing.T, cfg *tls.Config, hdr http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{TLSClientConfig: cfg, HandshakeTimeout: wait}
	ws, resp, err := d.Dial(s.wss, hdr)
	if resp != nil {
		resp.Body.Close()
	}
	if err == nil {
		t.Cleanup(func() { ws.Close() })
	}
	return ws, resp, err
}

// A client that trusts the CA gets the probes over https and a session
// over wss; one that does not is refused by its own TLS check; plain
// http and ws on the TLS port get nothing.
func TestTLSServesHTTPSAndWSS(t *testing.T) {
	s := startTLSServer(t, Config{})

	resp, err := s.httpClient(t, s.trusting).Get(s.https + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" || resp.TLS == nil {
		t.Errorf("GET /healthz over https: %d %q", resp.StatusCode, body)
	}

	ws, _, err := s.dialWSS(t, s.trusting, bearer(testToken))
	if err != nil {
		t.Fatalf("wss dial: %v", err)
	}
	await(t, s.h.opened, "Open")
	r := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"over":"tls"}}`))
	if string(r.Result) != `{"over":"tls"}` {
		t.Errorf("echo over wss: %s", r.Result)
	}

	_, err = s.httpClient(t, &tls.Config{MinVersion: tls.VersionTLS12}).Get(s.https + "/healthz")
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("client without the CA: %v, want an unknown authority", err)
	}
	if _, _, err := s.dialWSS(t, &tls.Config{MinVersion: tls.VersionTLS12}, bearer(testToken)); !errors.As(err, &unknown) {
		t.Errorf("wss client without the CA: %v, want an unknown authority", err)
	}

	resp, err = http.Get("http://" + s.addr + "/healthz")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain http on the TLS port: 200")
		}
	}
	if _, _, err := s.dial(t, s.url, bearer(testToken)); err == nil {
		t.Errorf("plain ws on the TLS port: connected")
	}
}

// A certificate renewed on disk is served to the next connection, with no
// restart; the connection already open carries on.
func TestTLSRenewedCertificateServed(t *testing.T) {
	s := startTLSServer(t, Config{})
	servedSerial := func() int64 {
		t.Helper()
		c, err := tls.Dial("tcp", s.addr, s.trusting)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	if n := servedSerial(); n != 1 {
		t.Fatalf("serial %d, want 1", n)
	}
	ws, _, err := s.dialWSS(t, s.trusting, bearer(testToken))
	if err != nil {
		t.Fatal(err)
	}
	await(t, s.h.opened, "Open")

	s.ca.Issue(t, 2).Write(t, s.dir)
	if n := servedSerial(); n != 2 {
		t.Errorf("after renewal: serial %d, want 2", n)
	}
	r := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`))
	if string(r.Result) != `[1]` {
		t.Errorf("the connection opened before the renewal: %s", r.Result)
	}
}

// A WebSocket over TLS gives its listener slot back like a plain one: with
// one slot, a request after the upgrade is served and the WebSocket is not
// closed to make room for it (the listener sees the TCP connection under
// the TLS one).
func TestTLSWebSocketFreesItsSlot(t *testing.T) {
	s := startTLSServer(t, Config{MaxHTTPConns: 1})
	ws, _, err := s.dialWSS(t, s.trusting, bearer(testToken))
	if err != nil {
		t.Fatal(err)
	}
	await(t, s.h.opened, "Open")
	client := s.httpClient(t, s.trusting)
	for range 3 {
		resp, err := client.Get(s.https + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	r := decodeResponse(t, roundTrip(t, ws, `{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}`))
	if string(r.Result) != `[2]` {
		t.Errorf("echo after the probes: %s", r.Result)
	}
}

// The console's own pages are https://host over TLS: that origin is
// accepted, its http:// twin is not; a WebSocket dialled at another path
// is told the wss:// URL.
func TestTLSConsoleOriginAndRefusalText(t *testing.T) {
	console := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("console")) })
	s := startTLSServer(t, Config{Console: console})
	hdr := bearer(testToken)
	hdr.Set("Origin", "https://"+s.addr)
	if _, _, err := s.dialWSS(t, s.trusting, hdr); err != nil {
		t.Errorf("console origin over TLS: %v", err)
	}
	hdr.Set("Origin", "http://"+s.addr)
	_, resp, err := s.dialWSS(t, s.trusting, hdr)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("http:// origin on the TLS port: %v %v, want 403", err, resp)
	}

	d := websocket.Dialer{TLSClientConfig: s.trusting, HandshakeTimeout: wait}
	_, resp, err = d.Dial("wss://"+s.addr+"/", bearer(testToken))
	if err == nil {
		t.Fatal("dialled /")
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "connect to wss://" + s.addr + "/ws"; !strings.Contains(string(body), want) {
		t.Errorf("refusal %q lacks %q", body, want)
	}
}

// A failed handshake is a refusal: plain HTTP on the TLS port is told so
// (net/http's 400), and each failure is counted and logged at the refusal
// rate as reason "tls", naming the peer and never anything it sent.
func TestTLSHandshakeFailuresAreRefusals(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	logged := make(chan zapcore.Entry, 16)
	hooked := zapcore.RegisterHooks(core, func(e zapcore.Entry) error {
		logged <- e
		return nil
	})
	s := startTLSServer(t, Config{Logger: zap.New(hooked)})

	c := dialTCP(t, s.addr)
	write(t, c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "+testToken+"\r\n\r\n")
	_ = c.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTP request to an HTTPS server") {
		t.Errorf("plain HTTP on the TLS port: %d %q", resp.StatusCode, body)
	}
	e := await(t, logged, "the refusal's log line")
	if e.Message != "TLS handshake refused" {
		t.Fatalf("logged %q", e.Message)
	}

	// A client that does not trust the certificate gives up the handshake.
	if _, err := tls.Dial("tcp", s.addr, &tls.Config{MinVersion: tls.VersionTLS12}); err == nil {
		t.Fatal("handshake without the CA succeeded")
	}
	await(t, logged, "the second refusal's log line")

	lines := logs.FilterMessage("TLS handshake refused").All()
	if len(lines) != 2 {
		t.Fatalf("%d lines: %v", len(lines), logs.All())
	}
	for _, l := range lines {
		f := l.ContextMap()
		if f["reason"] != "tls" || !strings.HasPrefix(f["remote"].(string), "127.0.0.1:") || f["error"] == "" {
			t.Errorf("fields %v", f)
		}
		if strings.Contains(fmt.Sprint(f), testToken) {
			t.Errorf("the token is in the log: %v", f)
		}
	}
	var m dto.Metric
	if err := s.metrics.rejected.WithLabelValues("tls").Write(&m); err != nil {
		t.Fatal(err)
	}
	if n := m.GetCounter().GetValue(); n != 2 {
		t.Errorf("cdevd_upgrades_rejected_total{reason=\"tls\"} = %v, want 2", n)
	}
}
