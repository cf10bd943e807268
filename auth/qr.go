package auth

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	qrcode "github.com/skip2/go-qrcode"
)

// QRSize is the side, in pixels, of the QR code /api/pair/new draws.
const QRSize = 256

// QRPayload is what the iOS app reads from a pairing QR code: ws and
// token (a pairing token it exchanges), with http, session and repo
// beside them; urls lists every address cdevd may be reached at, best
// first (ws is the first), for clients that can try more than one and
// keep several machines apart.
type QRPayload struct {
	WS      string   `json:"ws"`
	HTTP    string   `json:"http"`
	Session string   `json:"session"`
	Repo    string   `json:"repo"`
	Token   string   `json:"token"`
	URLs    []string `json:"urls,omitempty"`
}

// SetAdvertised gives the service the addresses a phone may reach cdevd
// at, best first (the daemon's reach.Advertised): a console opened on
// loopback must still put a LAN, tailnet or public address in its QR
// code. Set it before serving; without it the request's own address is
// used.
func (s *Service) SetAdvertised(f func() []Addresses) { s.advertised = f }

// reachable are the addresses to hand a new device, best first; never
// empty.
func (s *Service) reachable(r *http.Request) []Addresses {
	if s.advertised != nil {
		if urls := s.advertised(); len(urls) > 0 {
			return urls
		}
	}
	return []Addresses{addressesOf(r)}
}

// qrImage is the payload's QR code as a PNG data: URL, drawn here (the
// same library as `cdevd pair`'s terminal code) so that the console needs
// no QR encoder of its own and its CSP need allow no more than data:
// images.
func qrImage(p QRPayload) (payload, dataURL string, err error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return "", "", err
	}
	png, err := qrcode.Encode(string(raw), qrcode.Medium, QRSize)
	if err != nil {
		return "", "", err
	}
	return string(raw), "data:image/png;base64," + base64.StdEncoding.EncodeToString(png), nil
}
