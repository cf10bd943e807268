package rpc_test

import (
	"testing"

	"github.com/cdevd/cdevd/rpc"
)

func TestTruncateUTF8(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"}, // é is two bytes: cut before it, not inside
		{"héllo", 3, "hé"},
		{"日本", 4, "日"},
		{"日本", 2, ""},
		{"abc", 0, ""},
	}
	for _, tt := range tests {
		if got := rpc.TruncateUTF8(tt.s, tt.n); got != tt.want {
			t.Errorf("TruncateUTF8(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
