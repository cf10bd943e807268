package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cdevd/cdevd/internal/tlsfiles/tlstest"
	"github.com/cdevd/cdevd/runtimes/claude/claudetest"
)

// `service install` writes the certificate's paths absolute: the service
// does not start in this directory.
func TestServiceInstallWritesAbsoluteCertPaths(t *testing.T) {
	e := newSvcEnv(t)
	e.fake(t, "systemctl", fakeSystemctl)
	t.Setenv("CDEVD_HOME", filepath.Join(t.TempDir(), "state"))
	dir := t.TempDir()
	t.Chdir(dir)
	tlstest.NewCA(t, "test CA").Issue(t, 1).Write(t, dir)
	out, err := svc(t, "linux", "install", "--", "--tls-cert", "cert.pem", "--tls-key=key.pem",
		"--public-url", "https://mybox.tail1234.ts.net")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(e.home, ".config", "systemd", "user", systemdUnitName))
	if err != nil {
		t.Fatal(err)
	}
	want := "ExecStart=/usr/local/bin/cdevd serve --public-url=https://mybox.tail1234.ts.net --tls-cert=" +
		filepath.Join(dir, "cert.pem") + " --tls-key=" + filepath.Join(dir, "key.pem") + "\n"
	if !strings.Contains(string(data), want) {
		t.Errorf("the unit lacks %q:\n%s", want, data)
	}
}

// `cdevd serve --tls-cert --tls-key` on every interface prints wss://
// URLs, the machine's addresses among them, and no warning about plain
// traffic; a client trusting the CA connects.
func TestServeTLSPrintsWSS(t *testing.T) {
	ca := tlstest.NewCA(t, "test CA")
	certFile, keyFile := ca.Issue(t, 1).Write(t, t.TempDir())
	cmd := exec.Command(os.Args[0], "serve", "--addr", "0.0.0.0:0", "--allow-remote", "--tls-cert", certFile,
		"--tls-key", keyFile, "--no-console")
	cmd.Env = append(os.Environ(), "CDEVD_TEST_MAIN=1", "CDEVD_HOME="+t.TempDir(), "CDEVD_TOKEN="+envToken,
		"CLAUDE_BIN=/nonexistent/claude")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := logFile(t)
	cmd.Stderr = stderr.f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve ended; log: %s", stderr.String())
			}
			return l
		case <-time.After(claudetest.Timeout):
			t.Fatalf("serve printed nothing more; log: %s", stderr.String())
		}
		return ""
	}
	m := regexp.MustCompile(`listening on wss://\[::\]:(\d+)/ws`).FindStringSubmatch(next())
	if m == nil {
		t.Fatalf("first line has no wss:// URL; log: %s", stderr.String())
	}
	port := m[1]
	next() // where the token comes from
	if l := next(); !regexp.MustCompile(`^reach: wss://\S+:` + port + `/ws \((tailnet|lan|public)\)$`).MatchString(l) {
		t.Errorf("want the advertised addresses after the token line, got %q", l)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}}
	conn, _, err := d.DialContext(ctx, "wss://127.0.0.1:"+port+"/ws", http.Header{"Authorization": {"Bearer " + envToken}})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if strings.Contains(stderr.String(), "without TLS") {
		t.Errorf("warned of plain traffic with TLS on:\n%s", stderr.String())
	}
}

// Without TLS on every interface, serve warns once that the network can
// read the traffic.
func TestServePlainWarns(t *testing.T) {
	cmd := exec.Command(os.Args[0], "serve", "--addr", "0.0.0.0:0", "--allow-remote", "--no-console")
	cmd.Env = append(os.Environ(), "CDEVD_TEST_MAIN=1", "CDEVD_HOME="+t.TempDir(), "CDEVD_TOKEN="+envToken,
		"CLAUDE_BIN=/nonexistent/claude")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := logFile(t)
	cmd.Stderr = stderr.f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// The warning is logged, straight into the file, before the
	// listening line is printed.
	if !bufio.NewScanner(stdout).Scan() {
		t.Fatalf("no output; log: %s", stderr.String())
	}
	if n := strings.Count(stderr.String(), "without TLS: whoever shares the network can read the traffic"); n != 1 {
		t.Errorf("%d warnings of plain traffic, want 1:\n%s", n, stderr.String())
	}
}

// fileLog is a child's stderr as a file of its own: the child writes it
// directly, so what it logged before printing a line is there once the
// line is read (a pipe would be copied by a goroutine of exec's, later).
type fileLog struct{ f *os.File }

func logFile(t *testing.T) fileLog {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return fileLog{f}
}

func (l fileLog) String() string {
	b, _ := os.ReadFile(l.f.Name())
	return string(b)
}
