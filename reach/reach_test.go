package reach

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

func TestClassifyHost(t *testing.T) {
	for _, c := range []struct {
		host string
		want Kind
	}{
		{"127.0.0.1", Loopback},
		{"127.8.9.10", Loopback},
		{"::1", Loopback},
		{"[::1]", Loopback},
		{"localhost", Loopback},
		{"LocalHost", Loopback},
		{"::ffff:127.0.0.1", Loopback},
		{"100.64.0.1", Tailnet},
		{"100.101.102.103", Tailnet},
		{"100.127.255.254", Tailnet},
		{"fd7a:115c:a1e0::1", Tailnet},
		{"[fd7a:115c:a1e0:ab12::5]", Tailnet},
		{"100.63.255.255", Public}, // just below the tailnet range
		{"100.128.0.1", Public},    // just above it
		{"fd7a:115c:a1e1::1", LAN}, // another ULA: private, not Tailscale's
		{"192.168.1.20", LAN},
		{"10.0.0.5", LAN},
		{"172.16.3.4", LAN},
		{"172.32.0.1", Public},
		{"169.254.1.1", LAN},
		{"fe80::1", LAN},
		{"fd00::1", LAN},
		{"8.8.8.8", Public},
		{"2001:db8::1", Public},
		{"0.0.0.0", Any},
		{"::", Any},
		{"[::]", Any},
		{"", Any},
		{"mybox.example", Public},
		{"not an address", Public},
	} {
		if got := ClassifyHost(c.host); got != c.want {
			t.Errorf("ClassifyHost(%q) = %v, want %v", c.host, got, c.want)
		}
	}
}

func TestPlainWarning(t *testing.T) {
	for _, c := range []struct {
		addr string
		tls  bool
		warn bool
	}{
		{"127.0.0.1:16180", false, false},
		{"[::1]:16180", false, false},
		{"localhost:16180", false, false},
		{"100.100.1.2:16180", false, false},
		{"[fd7a:115c:a1e0::7]:16180", false, false},
		{"192.168.1.20:16180", false, true},
		{"0.0.0.0:16180", false, true},
		{"[::]:16180", false, true},
		{":16180", false, true},
		{"203.0.113.9:16180", false, true},
		{"mybox.example:16180", false, true},
		{"0.0.0.0:16180", true, false},
		{"192.168.1.20:16180", true, false},
	} {
		got := PlainWarning(c.addr, c.tls)
		if (got != "") != c.warn {
			t.Errorf("PlainWarning(%q, tls=%v) = %q, want a warning: %v", c.addr, c.tls, got, c.warn)
		}
		if got != "" && !strings.Contains(got, c.addr) {
			t.Errorf("PlainWarning(%q) = %q: does not name the address", c.addr, got)
		}
	}
}

func addrs(ss ...string) []netip.Addr {
	var as []netip.Addr
	for _, s := range ss {
		as = append(as, netip.MustParseAddr(s))
	}
	return as
}

func wsURLs(us []URL) []string {
	var ws []string
	for _, u := range us {
		ws = append(ws, u.WS)
	}
	return ws
}

func TestAdvertised(t *testing.T) {
	machine := addrs("127.0.0.1", "::1", "192.168.1.20", "fe80::1c2:3ff:fe45:6789", "100.101.1.2",
		"fd7a:115c:a1e0::5", "2001:db8::20", "172.17.0.1")
	public, err := ParsePublicURL("https://mybox.tail1234.ts.net")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		l    Listen
		want []string
	}{
		{"loopback listener: itself only", Listen{Addr: "127.0.0.1:16180"},
			[]string{"ws://127.0.0.1:16180/ws"}},
		{"every interface: tailnet, then LAN, then public, IPv4 first, no loopback nor link-local", Listen{Addr: "0.0.0.0:4000"},
			[]string{"ws://100.101.1.2:4000/ws", "ws://[fd7a:115c:a1e0::5]:4000/ws", "ws://172.17.0.1:4000/ws",
				"ws://192.168.1.20:4000/ws", "ws://[2001:db8::20]:4000/ws"}},
		{"every interface, IPv6 notation", Listen{Addr: "[::]:4000"},
			[]string{"ws://100.101.1.2:4000/ws", "ws://[fd7a:115c:a1e0::5]:4000/ws", "ws://172.17.0.1:4000/ws",
				"ws://192.168.1.20:4000/ws", "ws://[2001:db8::20]:4000/ws"}},
		{"one address", Listen{Addr: "100.101.1.2:16180"}, []string{"ws://100.101.1.2:16180/ws"}},
		{"TLS", Listen{Addr: "192.168.1.20:16180", TLS: true}, []string{"wss://192.168.1.20:16180/ws"}},
		{"public URL first", Listen{Addr: "127.0.0.1:16180", Public: public},
			[]string{"wss://mybox.tail1234.ts.net/ws", "ws://127.0.0.1:16180/ws"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := wsURLs(Advertised(c.l, machine)); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Advertised = %q, want %q", got, c.want)
			}
		})
	}
}

func TestAdvertisedURLsAndHosts(t *testing.T) {
	public, err := ParsePublicURL("wss://proxy.example:8443/cdevd/ws")
	if err != nil {
		t.Fatal(err)
	}
	got := Advertised(Listen{Addr: "0.0.0.0:16180", TLS: true, Public: public}, addrs("192.168.1.20", "100.64.0.9"))
	want := []URL{
		{WS: "wss://proxy.example:8443/cdevd/ws", HTTP: "https://proxy.example:8443/cdevd", Kind: Public, Host: "proxy.example"},
		{WS: "wss://100.64.0.9:16180/ws", HTTP: "https://100.64.0.9:16180", Kind: Tailnet, Host: "100.64.0.9"},
		{WS: "wss://192.168.1.20:16180/ws", HTTP: "https://192.168.1.20:16180", Kind: LAN, Host: "192.168.1.20"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Advertised =\n%+v\nwant\n%+v", got, want)
	}
	if h := Hosts(got); !reflect.DeepEqual(h, []string{"proxy.example", "100.64.0.9", "192.168.1.20"}) {
		t.Errorf("Hosts = %q", h)
	}
}

func TestParsePublicURL(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{in: "https://mybox.tail1234.ts.net", want: "https://mybox.tail1234.ts.net"},
		{in: "https://mybox.tail1234.ts.net/", want: "https://mybox.tail1234.ts.net/"},
		{in: "wss://h.example:8443/ws", want: "https://h.example:8443"},
		{in: "https://h.example:443", want: "https://h.example"},
		{in: "http://h.example", err: "https://"},
		{in: "ws://192.168.1.2:16180", err: "https://"},
		{in: "h.example", err: "https://"},
		{in: "https://", err: "no host"},
		{in: "https://u:p@h.example", err: "host[:port]"},
		{in: "https://h.example/?x=1", err: "host[:port]"},
		{in: "https://h.example/#frag", err: "host[:port]"},
		{in: "https://h ex", err: "--public-url"},
	} {
		u, err := ParsePublicURL(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParsePublicURL(%q) = %v, %v; want an error with %q", c.in, u, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("ParsePublicURL(%q): %v", c.in, err)
		case c.err == "" && u.String() != c.want:
			t.Errorf("ParsePublicURL(%q) = %q, want %q", c.in, u, c.want)
		}
	}
}

func TestLocalAddrsHasLoopback(t *testing.T) {
	as, err := LocalAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range as {
		if a.IsLoopback() {
			return
		}
	}
	t.Errorf("LocalAddrs() = %v: no loopback address, though lo is up", as)
}
