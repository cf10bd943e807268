package daemon

import (
	"crypto/tls"
	"net/url"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/internal/tlsfiles"
	"github.com/cdevd/cdevd/reach"
)

// checkReach refuses TLS and public URL settings Start could not use: one
// of --tls-cert and --tls-key without the other, files that cannot be
// read or do not make a pair, a --public-url that is not https.
func checkReach(cfg Config) error {
	_, _, err := reachSettings(cfg, zap.NewNop())
	return err
}

// reachSettings are cfg's TLS configuration (nil without --tls-cert) and
// parsed public URL (nil without --public-url).
func reachSettings(cfg Config, log *zap.Logger) (*tls.Config, *url.URL, error) {
	if err := tlsfiles.CheckFlags(cfg.TLSCert, cfg.TLSKey); err != nil {
		return nil, nil, err
	}
	var public *url.URL
	if cfg.PublicURL != "" {
		var err error
		if public, err = reach.ParsePublicURL(cfg.PublicURL); err != nil {
			return nil, nil, err
		}
	}
	if cfg.TLSCert == "" {
		return nil, public, nil
	}
	kp, err := tlsfiles.Load(cfg.TLSCert, cfg.TLSKey, log.Named("tls"))
	if err != nil {
		return nil, nil, err
	}
	return kp.Config(), public, nil
}

// advertisedHosts are the hosts of the URLs cdevd advertises when it
// listens on addr, for the Host check: the public URL's name and the
// machine's addresses (reach.Hosts). The port does not matter to them.
func advertisedHosts(addr string, public *url.URL, log *zap.Logger) []string {
	local, err := reach.LocalAddrs()
	if err != nil {
		log.Debug("reading the machine's addresses", zap.Error(err))
	}
	return reach.Hosts(reach.Advertised(reach.Listen{Addr: addr, Public: public}, local))
}
