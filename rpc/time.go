package rpc

import "time"

// TimeLayout is the one format of every timestamp on the wire: RFC 3339 in
// UTC with exactly three fractional digits, so that clients can parse and
// compare them as fixed-width strings (2026-01-15T09:30:12.345Z).
const TimeLayout = "2006-01-02T15:04:05.000Z"

// TimePattern is TimeLayout as a regular expression, for schemas.
const TimePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$`

// FormatTime writes t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// NormalizeTime rewrites an RFC 3339 time (as read from a CLI's transcript)
// in TimeLayout; a string that is not one is returned unchanged.
func NormalizeTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return FormatTime(t)
}
