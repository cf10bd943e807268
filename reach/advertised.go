package reach

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// URL is one way to reach cdevd: its WebSocket endpoint and the base of
// its HTTP endpoints (the console, /api/…), as the iOS app's QR payload
// carries them ("ws", "http").
type URL struct {
	WS   string `json:"ws"`   // ws(s)://host[:port]/ws
	HTTP string `json:"http"` // http(s)://host[:port]
	Kind Kind   `json:"-"`
	Host string `json:"-"` // the host alone (no port, no brackets), for the Host check
}

// Listen is what Advertised needs of a running cdevd.
type Listen struct {
	// Addr is the listener's address (host:port, the port resolved).
	Addr string
	// TLS: cdevd serves https and wss itself (--tls-cert).
	TLS bool
	// Public is the --public-url, parsed by ParsePublicURL (nil: none).
	Public *url.URL
}

// Advertised is every URL a client may use to reach cdevd, best first: the
// public URL (a trusted certificate), then tailnet addresses (encrypted
// by WireGuard), then LAN ones, IPv4 before IPv6 within each (the iOS app
// speaks plain ws:// only to IPv4 literals). local is this machine's
// interface addresses (LocalAddrs); they count only when the listener is
// on every interface (0.0.0.0 and :: alike: Go's "tcp" listener on either
// takes IPv4 and IPv6). A loopback listener advertises its loopback
// address only, which is no use to a phone, but is the truth.
func Advertised(l Listen, local []netip.Addr) []URL {
	var urls []URL
	if l.Public != nil {
		urls = append(urls, publicURL(l.Public))
	}
	ap, err := netip.ParseAddrPort(l.Addr)
	if err != nil {
		return urls
	}
	listenIP := ap.Addr().Unmap()
	var ips []netip.Addr
	if listenIP.IsUnspecified() {
		for _, a := range local {
			a = a.Unmap()
			// A link-local address needs a zone a phone cannot know.
			if a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsUnspecified() || a.IsMulticast() {
				continue
			}
			ips = append(ips, a)
		}
	} else {
		ips = append(ips, listenIP)
	}
	slices.SortStableFunc(ips, func(a, b netip.Addr) int {
		if r := rank(a) - rank(b); r != 0 {
			return r
		}
		return a.Compare(b)
	})
	ips = slices.Compact(ips)
	ws, httpScheme := "ws", "http"
	if l.TLS {
		ws, httpScheme = "wss", "https"
	}
	for _, ip := range ips {
		hostport := net.JoinHostPort(ip.String(), strconv.Itoa(int(ap.Port())))
		urls = append(urls, URL{WS: ws + "://" + hostport + "/ws", HTTP: httpScheme + "://" + hostport,
			Kind: Classify(ip), Host: ip.String()})
	}
	return urls
}

// rank orders addresses: tailnet, LAN, public, loopback; IPv4 first.
func rank(a netip.Addr) int {
	var r int
	switch Classify(a) {
	case Tailnet:
		r = 0
	case LAN:
		r = 2
	case Public:
		r = 4
	default:
		r = 6
	}
	if !a.Is4() {
		r++
	}
	return r
}

func publicURL(u *url.URL) URL {
	base := "https://" + u.Host + strings.TrimSuffix(u.Path, "/")
	ws := "wss://" + u.Host + strings.TrimSuffix(u.Path, "/") + "/ws"
	return URL{WS: ws, HTTP: base, Kind: Public, Host: u.Hostname()}
}

// ParsePublicURL checks a --public-url: the address of a TLS front for
// this cdevd (`tailscale serve`, a reverse proxy) or of cdevd itself
// with a trusted certificate. It must be https:// or wss:// (the iOS app
// reaches every name over wss://), with a host, and no user, query or
// fragment; a path is kept (a proxy that serves cdevd under a prefix).
func ParsePublicURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("--public-url %q: %w", s, err)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "wss":
		return nil, fmt.Errorf("--public-url %q: give an https:// (or wss://) URL: clients reach a name over TLS "+
			"(a plain address on your LAN or tailnet is advertised without it)", s)
	case u.Hostname() == "":
		return nil, fmt.Errorf("--public-url %q has no host", s)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return nil, fmt.Errorf("--public-url %q: give scheme://host[:port][/path] only", s)
	}
	u.Scheme = "https"
	// As browsers write the origin, and as the iOS app reads a name.
	u.Host = strings.TrimSuffix(u.Host, ":443")
	u.Path = strings.TrimSuffix(u.Path, "/ws")
	return u, nil
}

// Hosts are the hosts of urls, for the Host check (see transport).
func Hosts(urls []URL) []string {
	var hosts []string
	for _, u := range urls {
		if u.Host != "" && !slices.Contains(hosts, u.Host) {
			hosts = append(hosts, u.Host)
		}
	}
	return hosts
}

// LocalAddrs are the addresses of this machine's interfaces that are up.
// A Tailscale interface is one of them while Tailscale runs; cdevd learns
// of the tailnet this way rather than by talking to Tailscale.
func LocalAddrs() ([]netip.Addr, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	var errs []error
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		as, err := ifc.Addrs()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ifc.Name, err))
			continue
		}
		for _, a := range as {
			if pfx, err := netip.ParsePrefix(a.String()); err == nil {
				addrs = append(addrs, pfx.Addr())
			}
		}
	}
	return addrs, errors.Join(errs...)
}
