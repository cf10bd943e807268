package daemon

import (
	"net/http"

	"github.com/cdevd/cdevd/attachments"
	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/workspaces"
)

// apiHandler is everything under /api/: the pairing API (auth) and the
// app's image upload (attachments), each asking auth who calls.
func apiHandler(authn *auth.Service, atts *attachments.Store, store *workspaces.Store) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/", authn.Handler())
	mux.Handle("POST /api/images", atts.Handler(authn.Authenticator(), func(id string) bool {
		_, err := store.Get(id)
		return err == nil
	}))
	return mux
}
