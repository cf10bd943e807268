// Package reach says how a client, a phone above all, can reach this
// cdevd: what kind of network each address is on (loopback, a tailnet,
// a LAN, the internet), whether listening on one without TLS deserves a
// warning, and the URLs cdevd advertises (for `cdevd pair`'s QR code and
// the Host check). Everything here but LocalAddrs is a pure function of its
// arguments, so that each rule has a table test.
package reach

import (
	"net"
	"net/netip"
	"strings"
)

// Kind is the kind of network an address is on, as far as the address
// alone tells.
type Kind int

const (
	// Public is an address routed on the internet (or one Kind cannot
	// place): whoever is on the path can read plain traffic.
	Public Kind = iota
	// Loopback is this machine only.
	Loopback
	// Tailnet is a Tailscale address (100.64.0.0/10, fd7a:115c:a1e0::/48):
	// WireGuard encrypts that path end to end, so plain ws:// on it is
	// not readable by the network in between.
	Tailnet
	// LAN is a private or link-local address: the local network (a café's
	// Wi-Fi as much as one's own) can read plain traffic.
	LAN
	// Any is the unspecified address (0.0.0.0, ::): every interface, LAN
	// and public ones included.
	Any
)

func (k Kind) String() string {
	switch k {
	case Loopback:
		return "loopback"
	case Tailnet:
		return "tailnet"
	case LAN:
		return "lan"
	case Any:
		return "any"
	}
	return "public"
}

// Tailscale's address ranges: IPv4 in the shared address space (RFC 6598)
// and its own IPv6 ULA prefix. An ISP's carrier-grade NAT also uses
// 100.64.0.0/10, but never as an address of this machine's interface.
var (
	tailnet4 = netip.MustParsePrefix("100.64.0.0/10")
	tailnet6 = netip.MustParsePrefix("fd7a:115c:a1e0::/48")
)

// Classify tells what kind of network addr is on.
func Classify(addr netip.Addr) Kind {
	addr = addr.Unmap()
	switch {
	case !addr.IsValid():
		return Public
	case addr.IsUnspecified():
		return Any
	case addr.IsLoopback():
		return Loopback
	case tailnet4.Contains(addr) || tailnet6.Contains(addr):
		return Tailnet
	case addr.IsPrivate() || addr.IsLinkLocalUnicast():
		return LAN
	}
	return Public
}

// ClassifyHost is Classify for a host as --addr names it: an IP (IPv6
// bracketed or not), "localhost", or "" (every interface, as net.Listen
// reads it). Any other name is Public: what it resolves to is not known
// here.
func ClassifyHost(host string) Kind {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" {
		return Any
	}
	if strings.EqualFold(host, "localhost") {
		return Loopback
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return Public
	}
	return Classify(addr)
}

// PlainWarning is the warning `serve` gives when it listens on listenAddr
// (host:port) without TLS where the network can read its traffic: beyond
// loopback, on an address that is not a tailnet one. "" when there is
// nothing to warn of.
func PlainWarning(listenAddr string, tls bool) string {
	if tls {
		return ""
	}
	host, _, err := net.SplitHostPort(listenAddr)
	if err != nil {
		host = listenAddr
	}
	switch ClassifyHost(host) {
	case Loopback, Tailnet:
		return ""
	}
	return "listening on " + listenAddr + " without TLS: whoever shares the network can read the traffic, " +
		"tokens included; use a tailnet address, --tls-cert/--tls-key, or a TLS proxy (see docs/reach.md)"
}
