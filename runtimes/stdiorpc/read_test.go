package stdiorpc

// Bad lines: garbage and lines over the maximum are reported and skipped,
// never fatal.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

func TestGarbageIsReportedNotFatal(t *testing.T) {
	notes := make(chan string, 10)
	p, f, log := start(t, Handlers{OnNotification: func(m string, _ json.RawMessage) { notes <- m }}, Options{})

	pending := goCall(p, context.Background(), "x", nil, nil)
	req := f.recv()
	garbage := []string{
		`not json`,
		`{"unterminated":`,
		`[{"id":1,"result":1}]`,
		`42`,
		`{"foo":1}`,
		`{"id":{"a":1},"method":"x"}`,
		`{"id":true,"method":"x"}`,
		`{"method":7}`,
		`{"method":""}`,
		`{"result":1}`,
		`{"id":1,"error":"boom"}`,
		"\x00\xff\xfe",
	}
	for _, g := range garbage {
		f.send(g)
	}
	f.send(``)
	f.send("   \r")
	f.send(`{"id":999,"result":1}`)
	f.send(`{"method":"still/alive"}`)
	for range garbage {
		log.await(t, ErrMalformed)
	}
	log.await(t, ErrUnknownReply)
	if m := <-notes; m != "still/alive" {
		t.Fatalf("notification after garbage = %q", m)
	}
	f.send(fmt.Sprintf(`{"id":"%s","result":1}`, req["id"])) // our id, turned into a string: forgiven
	if err := awaitErr(t, pending); err != nil {
		t.Fatalf("Call after garbage: %v", err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.errs) != len(garbage)+1 {
		t.Fatalf("reported %d errors, want %d: %v", len(log.errs), len(garbage)+1, log.errs)
	}
}

func TestHugeLineIsSkipped(t *testing.T) {
	const max = 1024
	notes := make(chan json.RawMessage, 10)
	p, f, log := start(t, Handlers{OnNotification: func(_ string, params json.RawMessage) { notes <- params }}, Options{MaxLine: max})

	pending := goCall(p, context.Background(), "x", nil, nil)
	req := f.recv()
	// Over the maximum and over the read buffer: consumed, not kept.
	f.send(fmt.Sprintf(`{"id":%s,"result":"%s"}`, req["id"], strings.Repeat("x", 1<<20)))
	err := log.await(t, ErrLineTooLong)
	if !strings.Contains(err.Error(), "max 1024") {
		t.Fatalf("error does not say the limit: %v", err)
	}
	// The skipped line is not buffered: 32 MiB through, little allocated.
	chunk := []byte(strings.Repeat("z", 64<<10))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _ = io.WriteString(f.out, `{"method":"big","params":"`)
	for i := 0; i < 512; i++ {
		if _, err := f.out.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.send(`"}`)
	log.await(t, ErrLineTooLong)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Fatalf("reading a skipped 32 MiB line allocated %d bytes", grew)
	}
	// Exactly the maximum is kept.
	prefix, suffix := `{"method":"n","params":"`, `"}`
	exact := prefix + strings.Repeat("y", max-len(prefix)-len(suffix)) + suffix
	f.send(exact)
	if got := <-notes; len(got) != max-len(prefix)-len(suffix)+2 {
		t.Fatalf("line of exactly max: params %d bytes", len(got))
	}
	f.send(fmt.Sprintf(`{"id":%s,"result":"ok"}`, req["id"]))
	if err := awaitErr(t, pending); err != nil {
		t.Fatalf("Call after a huge line: %v", err)
	}
}
