package daemon

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	cdevd "github.com/cdevd/cdevd/clients/go"
	"github.com/cdevd/cdevd/internal/tlsfiles/tlstest"
)

const testToken = "0123456789abcdef0123456789abcdef-daemon-tls"

// start runs a daemon for the test and shuts it down at its end.
func start(t *testing.T, cfg Config) *Daemon {
	t.Helper()
	if cfg.Home == "" {
		cfg.Home = t.TempDir()
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	cfg.Token = testToken
	d, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return d
}

func dial(t *testing.T, d *Daemon, tc *tls.Config) (*cdevd.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cdevd.Dial(ctx, cdevd.Config{URL: d.URL(), Token: testToken,
		Dialer: &websocket.Dialer{TLSClientConfig: tc, HandshakeTimeout: 10 * time.Second}})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// With --tls-cert and --tls-key, a client that trusts the certificate's CA
// holds a session over wss:// (initialize, then a method), a client that
// does not is refused, and a certificate renewed on disk is served to
// the next client with no restart.
func TestServeOverTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "cdevd test CA")
	dir := t.TempDir()
	certFile, keyFile := ca.Issue(t, 10).Write(t, dir)
	d := start(t, Config{TLSCert: certFile, TLSKey: keyFile})
	trusting := &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}

	if !strings.HasPrefix(d.URL(), "wss://") || !strings.HasPrefix(d.ConsoleURL(), "https://") {
		t.Errorf("URL %s, console %s: want wss:// and https://", d.URL(), d.ConsoleURL())
	}
	c, err := dial(t, d, trusting)
	if err != nil {
		t.Fatalf("dial with the CA trusted: %v", err)
	}
	if info := c.Initialized().ServerInfo; info.ID == "" || info.Name != "cdevd" {
		t.Errorf("serverInfo over TLS: %+v", info)
	}
	if _, err := c.WorkspaceList(context.Background()); err != nil {
		t.Errorf("workspace/list over wss: %v", err)
	}

	_, err = dial(t, d, &tls.Config{MinVersion: tls.VersionTLS12})
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("dial without the CA: %v, want an unknown authority", err)
	}

	served := func() int64 {
		t.Helper()
		conn, err := tls.Dial("tcp", d.Addr(), trusting)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
	}
	if n := served(); n != 10 {
		t.Fatalf("serial %d, want 10", n)
	}
	ca.Issue(t, 11).Write(t, dir)
	if n := served(); n != 11 {
		t.Errorf("after renewal: serial %d, want 11", n)
	}
	if _, err := dial(t, d, trusting); err != nil {
		t.Errorf("dial after renewal: %v", err)
	}
	if _, err := c.WorkspaceList(context.Background()); err != nil {
		t.Errorf("the session opened before the renewal: %v", err)
	}
}

// Check (and so `serve` and `service install`) refuses TLS and public URL
// settings that cannot work, in words that say what to do.
func TestCheckReachSettings(t *testing.T) {
	ca := tlstest.NewCA(t, "cdevd test CA")
	dir := t.TempDir()
	certFile, keyFile := ca.Issue(t, 1).Write(t, dir)
	otherKey := filepath.Join(dir, "other.pem")
	tlstest.WriteFile(t, otherKey, ca.Issue(t, 2).KeyPEM)
	for _, c := range []struct {
		name string
		cfg  Config
		want string // "" = accepted
	}{
		{"neither", Config{}, ""},
		{"both", Config{TLSCert: certFile, TLSKey: keyFile}, ""},
		{"cert only", Config{TLSCert: certFile}, "--tls-cert and --tls-key go together"},
		{"key only", Config{TLSKey: keyFile}, "--tls-cert and --tls-key go together"},
		{"missing cert", Config{TLSCert: filepath.Join(dir, "nope.pem"), TLSKey: keyFile}, "--tls-cert: stat"},
		{"key of another cert", Config{TLSCert: certFile, TLSKey: otherKey}, "private key does not match"},
		{"public https", Config{PublicURL: "https://mybox.tail1234.ts.net"}, ""},
		{"public http", Config{PublicURL: "http://mybox.example"}, "give an https:// (or wss://) URL"},
		{"public without host", Config{PublicURL: "https:///ws"}, "has no host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.cfg)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Check = %v, want an error with %q", err, c.want)
			}
		})
	}
}

// getHost requests /healthz from d with the given Host header.
func getHost(t *testing.T, d *Daemon, host string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+d.Addr()+"/healthz", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The Host check accepts the public URL's name and the addresses cdevd
// advertises with no --allow-host, and still refuses any other.
func TestHostCheckAcceptsAdvertised(t *testing.T) {
	d := start(t, Config{PublicURL: "https://mybox.tail1234.ts.net"})
	if code := getHost(t, d, "mybox.tail1234.ts.net"); code != http.StatusOK {
		t.Errorf("public URL's host: %d", code)
	}
	for _, h := range []string{"evil.example", "mybox.tail1234.ts.net.evil.example", "192.0.2.200:16180"} {
		if code := getHost(t, d, h); code != http.StatusForbidden {
			t.Errorf("Host %s: %d, want 403", h, code)
		}
	}
	// The console reached through the front: its pages have the public
	// URL's origin, which may open a WebSocket; another origin may not.
	for origin, want := range map[string]int{"https://mybox.tail1234.ts.net": http.StatusSwitchingProtocols,
		"https://evil.example": http.StatusForbidden} {
		hdr := http.Header{"Host": {"mybox.tail1234.ts.net"}, "Origin": {origin}, "Authorization": {"Bearer " + testToken}}
		ws, resp, err := websocket.DefaultDialer.Dial(d.URL(), hdr)
		if err == nil {
			ws.Close()
		}
		if resp == nil || resp.StatusCode != want {
			t.Errorf("Origin %s through the public name: %v %v, want %d", origin, resp, err, want)
		}
	}

	// On every interface, the machine's addresses are advertised and
	// accepted, even when the request comes in on another (here loopback,
	// so that only the advertised list can accept them).
	all := start(t, Config{Addr: "0.0.0.0:0", AllowRemote: true})
	adv := all.Advertised()
	if len(adv) == 0 {
		t.Fatal("nothing advertised on 0.0.0.0: this test needs a non-loopback IPv4 address on an interface")
	}
	for _, u := range adv {
		if code := getHost(t, all, u.Host); code != http.StatusOK {
			t.Errorf("advertised %s (%s): %d", u.Host, u.WS, code)
		}
	}
}

// The warning about a plain listener the network can read comes once, for
// every interface without TLS, and neither for loopback nor with TLS.
func TestPlainListenerWarning(t *testing.T) {
	ca := tlstest.NewCA(t, "cdevd test CA")
	certFile, keyFile := ca.Issue(t, 1).Write(t, t.TempDir())
	for _, c := range []struct {
		name string
		cfg  Config
		warn bool
	}{
		{"loopback", Config{Addr: "127.0.0.1:0"}, false},
		{"every interface", Config{Addr: "0.0.0.0:0", AllowRemote: true}, true},
		{"every interface with TLS", Config{Addr: "0.0.0.0:0", AllowRemote: true, TLSCert: certFile, TLSKey: keyFile}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			core, logs := observer.New(zap.WarnLevel)
			c.cfg.Logger = zap.New(core)
			start(t, c.cfg)
			n := 0
			for _, e := range logs.All() {
				if strings.Contains(e.Message, "without TLS") {
					n++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[c.warn]; n != want {
				t.Errorf("%d warnings about plain traffic, want %d: %v", n, want, logs.All())
			}
		})
	}
}

// serverInfo carries a stable id, kept in the state directory (the same
// after a restart, another for another home), and the machine's name.
func TestServerIdentity(t *testing.T) {
	home := t.TempDir()
	info := func(home string) (id, hostname string) {
		t.Helper()
		d := start(t, Config{Home: home})
		c, err := dial(t, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		i := c.Initialized()
		if i.ServerInfoSnake != i.ServerInfo {
			t.Errorf("server_info %+v differs from serverInfo %+v", i.ServerInfoSnake, i.ServerInfo)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		return i.ServerInfo.ID, i.ServerInfo.Hostname
	}
	first, host := info(home)
	again, _ := info(home)
	other, _ := info(t.TempDir())
	if len(first) != 32 || first != again || other == first {
		t.Errorf("ids: %q, after a restart %q, another home %q: want 32 hex characters, stable per home", first, again, other)
	}
	if want, _ := os.Hostname(); host != want {
		t.Errorf("hostname %q, want %q", host, want)
	}
	fi, err := os.Stat(ServerIDFile(home))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("server-id mode %04o, want 0600", fi.Mode().Perm())
	}
}
