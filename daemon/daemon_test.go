package daemon

import (
	"net"
	"strings"
	"testing"
)

// A second cdevd on a busy port says what to do, not only "address
// already in use".
func TestBusyPortSaysWhatToDo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Start(Config{Home: t.TempDir(), Addr: ln.Addr().String()})
	if err == nil {
		t.Fatal("started on a busy port")
	}
	for _, w := range []string{"--addr " + ln.Addr().String() + " is in use", "another cdevd may be running",
		"`cdevd service status`", "--addr 127.0.0.1:0", "address already in use"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v\nlacks %q", err, w)
		}
	}
}
