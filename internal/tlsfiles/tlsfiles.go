// Package tlsfiles serves a TLS certificate from PEM files that may be
// renewed while cdevd runs (certbot, `tailscale cert`, a cron job): each
// handshake looks at the files' size and modification time (two stat
// calls, no read) and loads them again only when either changed.
package tlsfiles

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync"

	"go.uber.org/zap"
)

// MinVersion is the oldest TLS version cdevd accepts.
const MinVersion = tls.VersionTLS12

// Keypair is a certificate and its key, kept in step with their files.
type Keypair struct {
	certFile, keyFile string
	log               *zap.Logger

	mu   sync.Mutex
	cert *tls.Certificate
	// loaded is the stamp of the files cert came from; failed is that of
	// files that did not make a pair (logged once, not again until they
	// change).
	loaded, failed stamp
}

// stamp is what tells that the files changed without reading them.
type stamp struct {
	cert, key os.FileInfo
}

// same reports whether s names the very files t does, unchanged: the same
// file (a renewal that renames a new file into place makes another one),
// size and modification time.
func (s stamp) same(t stamp) bool {
	return sameFile(s.cert, t.cert) && sameFile(s.key, t.key)
}

func sameFile(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// Load reads certFile and keyFile (PEM; the certificate file may hold the
// chain after the leaf). An error names the file at fault. log (may be
// nil) hears of a renewal, and of renewed files that do not make a pair,
// in which case the previous certificate is served until they do.
func Load(certFile, keyFile string, log *zap.Logger) (*Keypair, error) {
	if log == nil {
		log = zap.NewNop()
	}
	k := &Keypair{certFile: certFile, keyFile: keyFile, log: log}
	st, err := k.stat()
	if err != nil {
		return nil, err
	}
	cert, err := k.read()
	if err != nil {
		return nil, err
	}
	k.cert, k.loaded = cert, st
	return k, nil
}

func (k *Keypair) stat() (stamp, error) {
	c, err := os.Stat(k.certFile)
	if err != nil {
		return stamp{}, fmt.Errorf("--tls-cert: %w", err)
	}
	kf, err := os.Stat(k.keyFile)
	if err != nil {
		return stamp{}, fmt.Errorf("--tls-key: %w", err)
	}
	return stamp{cert: c, key: kf}, nil
}

func (k *Keypair) read() (*tls.Certificate, error) {
	certPEM, err := os.ReadFile(k.certFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert: %w", err)
	}
	keyPEM, err := os.ReadFile(k.keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", k.certFile, k.keyFile, err)
	}
	return &cert, nil
}

// Certificate is the certificate to serve now: the files' current one
// if they changed and make a pair, else the last that did.
func (k *Keypair) Certificate() *tls.Certificate {
	k.mu.Lock()
	defer k.mu.Unlock()
	st, err := k.stat()
	if err != nil || st.same(k.loaded) || st.same(k.failed) {
		// A file being replaced may be missing for a moment: keep serving.
		return k.cert
	}
	cert, err := k.read()
	if err != nil {
		// Renewals write the certificate and the key one after the other:
		// in between they do not match, and the next handshake tries again.
		k.failed = st
		k.log.Warn("renewed TLS files not loaded; serving the previous certificate", zap.Error(err))
		return k.cert
	}
	k.cert, k.loaded, k.failed = cert, st, stamp{}
	k.log.Info("TLS certificate reloaded", zap.String("subject", leafSubject(cert)))
	return k.cert
}

func leafSubject(c *tls.Certificate) string {
	if c.Leaf != nil {
		return c.Leaf.Subject.String()
	}
	if len(c.Certificate) > 0 {
		if leaf, err := x509.ParseCertificate(c.Certificate[0]); err == nil {
			return leaf.Subject.String()
		}
	}
	return ""
}

// Config is a server TLS configuration that serves k: TLS 1.2 or later,
// HTTP/1.1 only (a WebSocket upgrade needs it).
func (k *Keypair) Config() *tls.Config {
	return &tls.Config{
		MinVersion: MinVersion,
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return k.Certificate(), nil
		},
	}
}

// CheckFlags refuses one of the two flags without the other.
func CheckFlags(certFile, keyFile string) error {
	if (certFile == "") != (keyFile == "") {
		return errors.New("--tls-cert and --tls-key go together: give both (PEM files), or neither to serve plain http/ws")
	}
	return nil
}
