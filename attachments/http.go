package attachments

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/cdevd/cdevd/auth"
)

// uploadTime is how long one upload may take to arrive. The transport's
// ReadTimeout (30 s) suits small requests; 20 MB from a phone on a slow
// link needs longer.
const uploadTime = 5 * time.Minute

// multipartSlack is room for a multipart body's boundaries and headers
// beyond the file itself.
const multipartSlack = 64 << 10

// UploadResult is POST /api/images's answer, as the iOS app decodes it.
type UploadResult struct {
	Success   bool   `json:"success"`
	ID        string `json:"id"`
	LocalPath string `json:"local_path"`
	MIMEType  string `json:"mime_type"`
	Size      int64  `json:"size"`
	ExpiresAt int64  `json:"expires_at"` // unix seconds
}

// Handler serves POST /api/images?workspace_id=ID: a multipart body whose
// part "file" is an image. The caller presents its bearer token (the
// owner's, or a device's that may act); workspace says whether an id names
// a workspace.
func (s *Store) Handler(authn *auth.Authenticator, workspace func(id string) bool) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/images", func(w http.ResponseWriter, r *http.Request) {
		s.upload(w, r, authn, workspace)
	})
	return mux
}

func (s *Store) upload(w http.ResponseWriter, r *http.Request, authn *auth.Authenticator, workspace func(string) bool) {
	p, err := authn.AuthenticateHeader(r)
	if err != nil {
		writeError(w, http.StatusUnauthorized, `send your token as "Authorization: Bearer <token>"`)
		return
	}
	if !p.CanAct() {
		writeError(w, http.StatusForbidden, "device "+p.DeviceID+" has scope "+string(p.Scope)+"; uploading needs control")
		return
	}
	id := r.URL.Query().Get("workspace_id")
	switch {
	case id == "":
		writeError(w, http.StatusBadRequest, "workspace_id is required")
		return
	case !workspace(id):
		writeError(w, http.StatusNotFound, "no workspace "+id)
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadTime))
	raw := r.Body
	if r.ContentLength > s.cfg.MaxBytes+multipartSlack {
		s.refuse(w, ErrTooLarge, "")
		if r.Header.Get("Expect") != "100-continue" { // such a client sends nothing more
			s.drain(w, raw)
		}
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBytes+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		writeError(w, http.StatusBadRequest, `send multipart/form-data with the image in part "file"`)
		return
	}
	for {
		part, err := mr.NextPart()
		if err != nil {
			s.refuse(w, err, `no part "file" in the body`)
			s.drain(w, raw)
			return
		}
		if part.FormName() != "file" {
			part.Close()
			continue
		}
		// The part's file name is not looked at: the stored name is an id.
		it, err := s.Put(part, true)
		part.Close()
		if err != nil {
			s.refuse(w, err, "")
			s.drain(w, raw)
			return
		}
		s.log.Info("image uploaded", zap.String("device", p.DeviceID), zap.String("workspace", id),
			zap.String("id", it.ID), zap.String("type", it.MIMEType), zap.Int64("size", it.Size))
		writeJSON(w, http.StatusOK, UploadResult{Success: true, ID: it.ID, LocalPath: it.Path,
			MIMEType: it.MIMEType, Size: it.Size, ExpiresAt: it.ExpiresAt.Unix()})
		return
	}
}

// refuse answers a failed upload with the status its cause calls for.
func (s *Store) refuse(w http.ResponseWriter, err error, otherwise string) {
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, ErrTooLarge) || errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "the image is too large: at most "+mib(s.cfg.MaxBytes))
	case errors.Is(err, ErrNotImage):
		writeError(w, http.StatusUnsupportedMediaType, err.Error())
	case errors.Is(err, ErrEmpty):
		writeError(w, http.StatusBadRequest, "the image is empty")
	case otherwise != "":
		writeError(w, http.StatusBadRequest, otherwise)
	default:
		s.log.Warn("upload failed", zap.Error(err))
		writeError(w, http.StatusBadRequest, "the upload failed: "+err.Error())
	}
}

// drain reads what is left of a refused upload's body, at most four times
// the cap, after its answer is flushed. The server would otherwise close a
// connection that still has unread bytes; the kernel then answers the
// client's next segment with a reset, which can destroy the answer before
// the client reads it, so the app would show a network error, not "too
// large". A body larger still is cut off as before.
func (s *Store) drain(w http.ResponseWriter, body io.Reader) {
	_ = http.NewResponseController(w).Flush()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 4*s.cfg.MaxBytes))
}

func mib(n int64) string {
	return strconv.FormatInt(n>>20, 10) + " MiB"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"success": false, "error": msg})
}
