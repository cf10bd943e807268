package notify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	webpush "github.com/SherClockHolmes/webpush-go"
)

// VAPIDFileName holds the daemon's VAPID key pair inside $CDEVD_HOME.
const VAPIDFileName = "vapid.json"

// VAPID is the key pair (P-256, base64url) that signs cdevd's requests to
// push services (RFC 8292). Browsers bind a subscription to the public
// key, so it is made once and kept: a new pair would orphan every
// subscription.
type VAPID struct {
	Public  string `json:"public"`
	Private string `json:"private"`
}

// String never shows the private key.
func (v VAPID) String() string { return "VAPID " + v.Public }

// LoadVAPID reads the key pair from home, making it on first start. The
// file is private to the user (mode 0600) and written atomically.
func LoadVAPID(home string) (VAPID, error) {
	path := filepath.Join(home, VAPIDFileName)
	data, err := os.ReadFile(path)
	if err == nil {
		info, serr := os.Stat(path)
		if serr != nil {
			return VAPID{}, serr
		}
		if info.Mode().Perm()&0o077 != 0 {
			return VAPID{}, fmt.Errorf("%s is readable by others (mode %04o): it holds cdevd's push signing key; "+
				"run chmod 600 %s", path, info.Mode().Perm(), path)
		}
		var v VAPID
		if err := json.Unmarshal(data, &v); err != nil || v.Public == "" || v.Private == "" {
			return VAPID{}, fmt.Errorf("%s: not a VAPID key pair (remove it to make a new one; browsers then subscribe again)", path)
		}
		return v, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return VAPID{}, err
	}
	private, public, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		return VAPID{}, err
	}
	v := VAPID{Public: public, Private: private}
	data, err = json.Marshal(v)
	if err != nil {
		return VAPID{}, err
	}
	return v, writeFileAtomic(path, data)
}
