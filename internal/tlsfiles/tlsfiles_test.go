package tlsfiles_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cdevd/cdevd/internal/tlsfiles"
	"github.com/cdevd/cdevd/internal/tlsfiles/tlstest"
)

// serial is the serial number of the certificate k serves now.
func serial(t *testing.T, k *tlsfiles.Keypair) *big.Int {
	t.Helper()
	leaf, err := x509.ParseCertificate(k.Certificate().Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.SerialNumber
}

func TestRenewedFilesAreServed(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	dir := t.TempDir()
	certFile, keyFile := ca.Issue(t, 100).Write(t, dir)
	core, logs := observer.New(zap.InfoLevel)
	k, err := tlsfiles.Load(certFile, keyFile, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	if s := serial(t, k); s.Int64() != 100 {
		t.Fatalf("serial %v, want 100", s)
	}
	if s := serial(t, k); s.Int64() != 100 || logs.Len() != 0 {
		t.Fatalf("unchanged files: serial %v, %d log lines; want 100 and none", s, logs.Len())
	}

	// Renewed by renaming new files into place.
	ca.Issue(t, 101).Write(t, dir)
	if s := serial(t, k); s.Int64() != 101 {
		t.Fatalf("after renewal: serial %v, want 101", s)
	}
	if logs.FilterMessage("TLS certificate reloaded").Len() != 1 {
		t.Errorf("logs: %v; want one reload line", logs.All())
	}

	// Renewed in place, the certificate first: until the key follows, the
	// pair does not match and the old certificate stays; one warning.
	next := ca.Issue(t, 102)
	tlstest.WriteFile(t, certFile, next.CertPEM)
	for range 3 {
		if s := serial(t, k); s.Int64() != 101 {
			t.Fatalf("half-renewed: serial %v, want the previous 101", s)
		}
	}
	if n := logs.FilterMessage("renewed TLS files not loaded; serving the previous certificate").Len(); n != 1 {
		t.Errorf("%d warnings for the half-renewed pair, want 1: %v", n, logs.All())
	}
	tlstest.WriteFile(t, keyFile, next.KeyPEM)
	if s := serial(t, k); s.Int64() != 102 {
		t.Fatalf("renewal completed: serial %v, want 102", s)
	}

	// A file missing for a moment (deleted, then written): keep serving.
	if err := os.Remove(certFile); err != nil {
		t.Fatal(err)
	}
	if s := serial(t, k); s.Int64() != 102 {
		t.Fatalf("file missing: serial %v, want 102", s)
	}
}

func TestLoadRefusals(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	dir := t.TempDir()
	certFile, keyFile := ca.Issue(t, 1).Write(t, dir)
	other := ca.Issue(t, 2)
	otherKey := filepath.Join(dir, "other-key.pem")
	tlstest.WriteFile(t, otherKey, other.KeyPEM)
	garbage := filepath.Join(dir, "garbage.pem")
	tlstest.WriteFile(t, garbage, []byte("not PEM"))

	for _, c := range []struct {
		name, cert, key string
		want            []string
	}{
		{"no cert file", filepath.Join(dir, "missing.pem"), keyFile, []string{"--tls-cert", "missing.pem"}},
		{"no key file", certFile, filepath.Join(dir, "missing.pem"), []string{"--tls-key", "missing.pem"}},
		{"key of another certificate", certFile, otherKey, []string{"--tls-cert " + certFile, "--tls-key " + otherKey, "private key does not match"}},
		{"not PEM", garbage, keyFile, []string{"--tls-cert " + garbage}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := tlsfiles.Load(c.cert, c.key, nil)
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nlacks %q", err, w)
				}
			}
		})
	}
	if _, err := tlsfiles.Load(filepath.Join(dir, "missing.pem"), keyFile, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist wrapped", err)
	}
}

func TestCheckFlags(t *testing.T) {
	for _, c := range []struct {
		cert, key string
		ok        bool
	}{{"", "", true}, {"c.pem", "k.pem", true}, {"c.pem", "", false}, {"", "k.pem", false}} {
		err := tlsfiles.CheckFlags(c.cert, c.key)
		if (err == nil) != c.ok {
			t.Errorf("CheckFlags(%q, %q) = %v", c.cert, c.key, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--tls-cert and --tls-key go together") {
			t.Errorf("CheckFlags: %v", err)
		}
	}
}

// The configuration refuses TLS 1.1 and serves 1.2 and 1.3, over a real
// handshake.
func TestConfigVersions(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	certFile, keyFile := ca.Issue(t, 7).Write(t, t.TempDir())
	k, err := tlsfiles.Load(certFile, keyFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		max uint16
		ok  bool
	}{{tls.VersionTLS11, false}, {tls.VersionTLS12, true}, {tls.VersionTLS13, true}} {
		server, client := net.Pipe()
		srv := tls.Server(server, k.Config())
		done := make(chan error, 1)
		go func() { done <- srv.Handshake(); server.Close() }()
		cl := tls.Client(client, &tls.Config{RootCAs: ca.Pool, ServerName: "localhost", MaxVersion: c.max,
			MinVersion: tls.VersionTLS10})
		err := cl.Handshake()
		client.Close()
		serr := <-done
		if (err == nil) != c.ok || (serr == nil) != c.ok {
			t.Errorf("max version %x: client %v, server %v; want success %v", c.max, err, serr, c.ok)
		}
		if c.ok && cl.ConnectionState().PeerCertificates[0].SerialNumber.Int64() != 7 {
			t.Errorf("served serial %v", cl.ConnectionState().PeerCertificates[0].SerialNumber)
		}
	}
}

// What each handshake pays to notice a renewal when there was none: two
// stat calls and a comparison, under 1% of a handshake (BenchmarkHandshake)
// even where system calls are slow.
func BenchmarkCertificateUnchanged(b *testing.B) {
	ca := tlstest.NewCA(b, "test CA")
	certFile, keyFile := ca.Issue(b, 1).Write(b, b.TempDir())
	k, err := tlsfiles.Load(certFile, keyFile, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if k.Certificate() == nil {
			b.Fatal("no certificate")
		}
	}
}

// A whole handshake with the configuration, for scale beside
// BenchmarkCertificateUnchanged (both sides run here, so about twice the
// server's share).
func BenchmarkHandshake(b *testing.B) {
	ca := tlstest.NewCA(b, "test CA")
	certFile, keyFile := ca.Issue(b, 1).Write(b, b.TempDir())
	k, err := tlsfiles.Load(certFile, keyFile, nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg := k.Config()
	client := &tls.Config{RootCAs: ca.Pool, ServerName: "localhost", MinVersion: tls.VersionTLS12}
	for b.Loop() {
		sc, cc := net.Pipe()
		done := make(chan error, 1)
		go func() { done <- tls.Server(sc, cfg).Handshake() }()
		if err := tls.Client(cc, client).Handshake(); err != nil {
			b.Fatal(err)
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		sc.Close()
		cc.Close()
	}
}
