package files

import (
	"path"
	"strings"
)

// Sensitive reports whether a file, by its workspace-relative path, is one
// that commonly holds secrets: environment files, private keys and
// certificates' keys, credential stores. It is a flag for clients (and for
// the server, which may restrict who reads them), not a guarantee: a
// secret can be in any file.
func Sensitive(rel string) bool {
	name := strings.ToLower(path.Base(rel))
	if name == ".env" || strings.HasPrefix(name, ".env.") {
		// .env.example and its kin are templates without the values.
		return !strings.HasSuffix(name, ".example") && !strings.HasSuffix(name, ".sample") &&
			!strings.HasSuffix(name, ".template") && !strings.HasSuffix(name, ".dist")
	}
	if sensitiveNames[name] {
		return true
	}
	if strings.HasPrefix(name, "id_") && !strings.HasSuffix(name, ".pub") &&
		(strings.Contains(name, "rsa") || strings.Contains(name, "dsa") || strings.Contains(name, "ed25519")) {
		return true // ssh keys: id_rsa, id_ecdsa, id_ed25519, id_dsa (and their -cert twins are public)
	}
	return sensitiveExtensions[Extension(name)]
}

var sensitiveNames = map[string]bool{
	".netrc": true, ".npmrc": true, ".pypirc": true, ".pgpass": true, ".htpasswd": true,
	".git-credentials": true, "credentials": true, "credentials.json": true, "secrets.json": true,
	"secrets.yaml": true, "secrets.yml": true, "service-account.json": true, ".dockercfg": true,
}

var sensitiveExtensions = map[string]bool{
	"pem": true, "key": true, "p12": true, "pfx": true, "keystore": true, "jks": true,
	"p8": true, "ppk": true, "asc": true, "gpg": true, "kdbx": true, "tfstate": true,
}
