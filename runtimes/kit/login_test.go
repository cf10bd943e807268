package kit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cdevd/cdevd/runtimes"
)

// What a turn reported stands until the credentials are rewritten after
// it (the user logged in again) or a turn completes; a detection that
// merely still says "logged in" from older files does not end it.
func TestLoginReportEndsWhenCredentialsChange(t *testing.T) {
	l := NewLogin("log in")
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	l.ReportUnauthenticated("401")
	if r, ok := l.Unauthenticated(); !ok || r != "a turn failed for lack of login (401): log in" {
		t.Fatalf("reported: %q %v", r, ok)
	}
	l.Checked(LoginCheck{State: runtimes.LoggedIn, Changed: now.Add(-time.Hour)})
	if _, ok := l.Unauthenticated(); !ok {
		t.Fatal("older credentials ended the report")
	}
	l.Checked(LoginCheck{State: runtimes.LoggedIn, Changed: now.Add(time.Second)})
	if _, ok := l.Unauthenticated(); ok {
		t.Fatal("credentials rewritten after the report did not end it")
	}
	l.ReportUnauthenticated("")
	now = now.Add(LoginReportTTL)
	if _, ok := l.Unauthenticated(); ok {
		t.Fatal("the report outlived LoginReportTTL")
	}
	var nilLogin *Login
	nilLogin.ReportUnauthenticated("x") // safe
	if _, ok := nilLogin.Unauthenticated(); ok {
		t.Fatal("nil Login reported")
	}
}

// DetectLogin leaves a CLI that is not usable alone, makes one that is
// logged out unusable with the check's reason, and keeps unknown usable.
func TestDetectLogin(t *testing.T) {
	check := func(c LoginCheck) func(context.Context, string) LoginCheck {
		return func(context.Context, string) LoginCheck { return c }
	}
	ok := runtimes.Availability{Installed: true, Path: "/bin/x", Version: "1"}
	if av := DetectLogin(context.Background(), ok, check(LoginCheck{State: runtimes.LoggedOut, Reason: "log in"}), nil); av.Usable() || av.Reason != "log in" || av.Login != runtimes.LoggedOut {
		t.Errorf("logged out: %+v", av)
	}
	if av := DetectLogin(context.Background(), ok, check(LoginCheck{}), nil); !av.Usable() || av.Login != runtimes.LoginUnknown {
		t.Errorf("unknown: %+v", av)
	}
	missing := runtimes.Availability{Reason: "not found"}
	if av := DetectLogin(context.Background(), missing, func(context.Context, string) LoginCheck {
		t.Error("checked a missing CLI")
		return LoginCheck{}
	}, nil); av.Reason != "not found" || av.Login != "" {
		t.Errorf("missing: %+v", av)
	}
}

func TestStatusAndDotEnv(t *testing.T) {
	code, out, _, err := Status(context.Background(), "/bin/sh", nil, "-c", "echo hi; exit 3")
	if err != nil || code != 3 || string(out) != "hi\n" {
		t.Errorf("status: %d %q %v", code, out, err)
	}
	if _, _, _, err := Status(context.Background(), "/nonexistent", nil); err == nil {
		t.Error("a missing program is an answer")
	}
	p := filepath.Join(t.TempDir(), ".env")
	os.WriteFile(p, []byte("# c\nexport GEMINI_API_KEY=\"k1\"\nOTHER=x\n"), 0o600) //nolint:errcheck
	if v := DotEnv(p, "GEMINI_API_KEY"); v != "k1" {
		t.Errorf("DotEnv = %q", v)
	}
}
