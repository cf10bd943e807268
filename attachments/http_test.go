package attachments

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/auth"
)

// watchToken is a device that may only watch, for the scope check.
type watchToken struct{}

func (watchToken) Authenticate(cred string, _ *http.Request) (auth.Principal, bool) {
	return auth.Principal{DeviceID: "d1", Name: "phone", Scope: auth.ScopeWatch}, cred == "watch-token"
}

func uploadServer(t *testing.T, cfg Config) (*Store, *httptest.Server) {
	s := openStore(t, cfg)
	authn := auth.New(auth.OwnerToken("owner-token"), watchToken{})
	srv := httptest.NewServer(s.Handler(authn, func(id string) bool { return id == "ws1" }))
	t.Cleanup(srv.Close)
	return s, srv
}

// multipartBody is what the iOS app sends: one part "file" with a file
// name and a content type of its own choosing.
func multipartBody(t testing.TB, part, filename, contentType string, data []byte) (io.Reader, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="` + part + `"; filename="` + filename + `"`}
	h["Content-Type"] = []string{contentType}
	w, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	mw.Close()
	return &b, mw.FormDataContentType()
}

func post(t *testing.T, url, token string, body io.Reader, contentType string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, body)
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("status %d: the body is not JSON: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

func TestUploadAsTheAppDoes(t *testing.T) {
	s, srv := uploadServer(t, Config{})
	img := pngBytes(t, 32, 32)
	body, ct := multipartBody(t, "file", "../../../tmp/evil.png", "image/jpeg", img)
	before := time.Now()
	status, out := post(t, srv.URL+"/api/images?workspace_id=ws1", "owner-token", body, ct)
	if status != http.StatusOK {
		t.Fatalf("status %d: %v", status, out)
	}
	// Every field the app's decoder requires, of the type it requires.
	if out["success"] != true || out["mime_type"] != "image/png" || out["size"] != float64(len(img)) {
		t.Fatalf("answer %v", out)
	}
	id, _ := out["id"].(string)
	path, _ := out["local_path"].(string)
	exp, _ := out["expires_at"].(float64)
	if id == "" || filepath.Dir(path) != s.Dir() || filepath.Base(path) != id+".png" || strings.Contains(path, "evil") {
		t.Fatalf("id %q, local_path %q: want <dir>/<id>.png whatever the file name", id, path)
	}
	if e := time.Unix(int64(exp), 0); e.Before(before.Add(DefaultTTL-time.Minute)) || e.After(time.Now().Add(DefaultTTL+time.Second)) {
		t.Fatalf("expires_at %v, want about %v from now", e, DefaultTTL)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, img) {
		t.Fatalf("the stored file differs (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Dir()), "tmp", "evil.png")); err == nil {
		t.Fatal("the client's file name reached a path")
	}
}

func TestUploadRefusals(t *testing.T) {
	_, srv := uploadServer(t, Config{})
	url := srv.URL + "/api/images?workspace_id=ws1"
	img := pngBytes(t, 4, 4)
	for _, c := range []struct {
		name   string
		url    string
		token  string
		body   func() (io.Reader, string)
		status int
		says   string
	}{
		{"no token", url, "", func() (io.Reader, string) { return multipartBody(t, "file", "a.png", "image/png", img) },
			http.StatusUnauthorized, "Bearer"},
		{"a wrong token", url, "nope", func() (io.Reader, string) { return multipartBody(t, "file", "a.png", "image/png", img) },
			http.StatusUnauthorized, "Bearer"},
		{"a watch device", url, "watch-token", func() (io.Reader, string) { return multipartBody(t, "file", "a.png", "image/png", img) },
			http.StatusForbidden, "scope watch"},
		{"no workspace_id", srv.URL + "/api/images", "owner-token", func() (io.Reader, string) { return multipartBody(t, "file", "a.png", "image/png", img) },
			http.StatusBadRequest, "workspace_id"},
		{"an unknown workspace", srv.URL + "/api/images?workspace_id=nope", "owner-token", func() (io.Reader, string) { return multipartBody(t, "file", "a.png", "image/png", img) },
			http.StatusNotFound, "nope"},
		{"not multipart", url, "owner-token", func() (io.Reader, string) { return bytes.NewReader(img), "image/png" },
			http.StatusBadRequest, "multipart"},
		{"no part file", url, "owner-token", func() (io.Reader, string) { return multipartBody(t, "image", "a.png", "image/png", img) },
			http.StatusBadRequest, `"file"`},
		{"text called a PNG", url, "owner-token", func() (io.Reader, string) {
			return multipartBody(t, "file", "a.png", "image/png", []byte("I am text pretending to be a PNG"))
		}, http.StatusUnsupportedMediaType, "PNG, JPEG, GIF or WebP"},
		{"50 MB", url, "owner-token", func() (io.Reader, string) {
			return multipartBody(t, "file", "a.png", "image/png", append(pngBytes(t, 4, 4), make([]byte, 50<<20)...))
		}, http.StatusRequestEntityTooLarge, "at most 20 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body, ct := c.body()
			status, out := post(t, c.url, c.token, body, ct)
			msg, _ := out["error"].(string)
			if status != c.status || out["success"] != false || !strings.Contains(msg, c.says) {
				t.Fatalf("status %d %v, want %d saying %q", status, out, c.status, c.says)
			}
		})
	}
}
