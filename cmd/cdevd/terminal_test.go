package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

const pairingToken = "cdev_p_TESTPAIRINGTOKEN0123456789"

const consoleURL = "http://127.0.0.1:16180/#pair=" + pairingToken

func TestConsoleURLCarriesThePairingTokenOnlyOnATerminal(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		old := isTerminal
		isTerminal = func(io.Writer) bool { return terminal }
		var out bytes.Buffer
		printConsoleURL(&out, consoleURL)
		isTerminal = old
		if terminal {
			if out.String() != "console: open "+consoleURL+"\n" {
				t.Errorf("on a terminal: %q, want the URL with the pairing token", out.String())
			}
			continue
		}
		if strings.Contains(out.String(), pairingToken) || !strings.HasPrefix(out.String(), "console: open http://127.0.0.1:16180/ and paste") ||
			!strings.Contains(out.String(), "`cdevd token`") {
			t.Errorf("not on a terminal: %q, want the URL without the token and how to get it", out.String())
		}
	}
	var out bytes.Buffer
	printConsoleURL(&out, "") // --no-console
	if out.Len() != 0 {
		t.Errorf("no console: printed %q", out.String())
	}
}
