package kit

import (
	"testing"

	"github.com/cdevd/cdevd/runtimes"
)

// BenchmarkEmit is the emitter's share of every streamed delta: queued by
// the adapter, delivered to the sink on the emitter's goroutine.
func BenchmarkEmit(b *testing.B) {
	em := NewEmitter(func(runtimes.Event) {}, nil)
	em.Run()
	ev := runtimes.MessageDelta{MessageID: "m", Text: "a streamed chunk of an answer, as models send them"}
	b.ReportAllocs()
	for range b.N {
		em.Emit(ev)
	}
	em.Sync()
	em.Emit(runtimes.ProcessExited{})
	<-em.Done()
}
