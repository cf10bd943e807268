package rpc

import (
	"regexp"
	"testing"
	"time"
)

func TestFormatTime(t *testing.T) {
	plus2 := time.FixedZone("+02", 2*3600)
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 1, 15, 11, 30, 12, 345678901, plus2), "2026-01-15T09:30:12.345Z"},
		{time.Date(2026, 1, 15, 9, 30, 12, 0, time.UTC), "2026-01-15T09:30:12.000Z"},
	} {
		got := FormatTime(tc.in)
		if got != tc.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tc.in, got, tc.want)
		}
		if !regexp.MustCompile(TimePattern).MatchString(got) {
			t.Errorf("%q does not match TimePattern", got)
		}
	}
}

func TestNormalizeTime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-01-15T09:30:12Z":           "2026-01-15T09:30:12.000Z",
		"2026-01-15T09:30:12.345678901Z": "2026-01-15T09:30:12.345Z",
		"2026-01-15T11:30:12.3+02:00":    "2026-01-15T09:30:12.300Z",
		"not a time":                     "not a time",
		"":                               "",
	} {
		if got := NormalizeTime(in); got != want {
			t.Errorf("NormalizeTime(%q) = %q, want %q", in, got, want)
		}
	}
}
