package claude

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPermissionPreviewBounded(t *testing.T) {
	// The limit falls inside an "é": the preview stops before it.
	long := "a" + strings.Repeat("é", previewLimit)
	for _, tt := range []struct{ content, want string }{
		{"short", "short"},
		{long, "a" + strings.Repeat("é", previewLimit/2-1) + "\n…"},
	} {
		in, err := json.Marshal(map[string]string{"file_path": "/w/f.txt", "content": tt.content})
		if err != nil {
			t.Fatal(err)
		}
		if got := permissionPrompt("Write", in, "").Preview; got != tt.want {
			t.Errorf("preview of %d bytes: got %d bytes ending %q, want %d bytes", len(tt.content), len(got), got[max(0, len(got)-8):], len(tt.want))
		}
	}
}
