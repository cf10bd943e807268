package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// Echo is the baseline server (`cdevd bench-echo`): a bare gorilla/websocket
// server on a free loopback port that answers every frame with a frame of
// the size the connection asked for (?reply=N, default: the frame's own
// size), so that a round trip carries as many bytes each way as the cdevd
// call it is compared with. It prints its URL on stdout and serves until
// stdin ends (the bench is gone or done).
func Echo(stdin io.Reader, stdout io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(echo), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "echo listening on ws://%s/ws\n", ln.Addr())
	_, _ = io.Copy(io.Discard, stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Shutdown does not wait for hijacked (WebSocket) connections; the
	// process exits right after, which closes them.
	if err := srv.Shutdown(ctx); err != nil {
		return err
	}
	if err := <-served; err != http.ErrServerClosed {
		return err
	}
	return nil
}

func echo(w http.ResponseWriter, r *http.Request) {
	size, _ := strconv.Atoi(r.URL.Query().Get("reply"))
	ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	reply := []byte(strings.Repeat("x", size))
	for {
		_, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		out := msg
		if size > 0 {
			out = reply
		}
		if err := ws.WriteMessage(websocket.TextMessage, out); err != nil {
			return
		}
	}
}
