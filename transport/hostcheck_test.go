package transport

import (
	"context"
	"net"
	"net/http"
	"testing"
)

// The Host check accepts an IP literal naming the address the request came
// in on (an address the machine has, whether or not it had it at the
// start), and still refuses other addresses and names.
func TestHostCheckAcceptsTheLocalAddress(t *testing.T) {
	s := New(Config{Token: testToken, AllowHosts: []string{"mybox.tail1234.ts.net"}}, newTestHandler())
	for _, c := range []struct {
		local, host string
		ok          bool
	}{
		{"192.168.1.20:16180", "192.168.1.20:16180", true},
		{"192.168.1.20:16180", "192.168.1.20", true},
		{"100.101.1.2:16180", "100.101.1.2:16180", true},
		{"[fd7a:115c:a1e0::5]:16180", "[fd7a:115c:a1e0::5]:16180", true},
		{"[::ffff:192.168.1.20]:16180", "192.168.1.20:16180", true},
		{"192.168.1.20:16180", "mybox.tail1234.ts.net", true},
		{"192.168.1.20:16180", "192.168.1.21:16180", false},
		{"192.168.1.20:16180", "evil.example", false},
		{"192.168.1.20:16180", "192.168.1.20.evil.example", false},
		{"192.168.1.20:16180", "", false},
	} {
		r, err := http.NewRequest(http.MethodGet, "http://x/healthz", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Host = c.host
		local, err := net.ResolveTCPAddr("tcp", c.local)
		if err != nil {
			t.Fatal(err)
		}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
		if got := s.hostAllowed(r); got != c.ok {
			t.Errorf("Host %q on %s: allowed %v, want %v", c.host, c.local, got, c.ok)
		}
	}
}

// The same over real sockets: listening on every interface, a request sent
// to one of the machine's addresses, naming it in Host, is served with no
// AllowHosts; a Host naming another address is refused.
func TestHostCheckAcceptsTheLocalAddressOverTheNetwork(t *testing.T) {
	s := New(Config{Token: testToken}, newTestHandler())
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		<-served
	})
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, a := range ifaddrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok || ipnet.IP.IsLoopback() || ipnet.IP.IsLinkLocalUnicast() {
			continue
		}
		hostport := net.JoinHostPort(ipnet.IP.String(), port)
		for host, want := range map[string]int{hostport: http.StatusOK, ipnet.IP.String(): http.StatusOK,
			net.JoinHostPort("192.0.2.254", port): http.StatusForbidden} {
			req, err := http.NewRequest(http.MethodGet, "http://"+hostport+"/healthz", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("to %s with Host %s: %d, want %d", hostport, host, resp.StatusCode, want)
			}
		}
		tried++
	}
	if tried == 0 {
		t.Fatalf("no non-loopback address on any interface (%v): this test needs one", ifaddrs)
	}
}
