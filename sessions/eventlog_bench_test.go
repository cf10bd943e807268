package sessions

import (
	"testing"
	"time"
)

// BenchmarkEventLogAdd is the replay buffer's share of every emitted event:
// a full ring dropping its oldest event for each new one.
func BenchmarkEventLogAdd(b *testing.B) {
	l := newEventLog(1000, 1000, DefaultReplayBytes, time.Minute)
	frame := make([]byte, 200)
	at := time.Now()
	b.ReportAllocs()
	for i := range b.N {
		l.add(&Event{Seq: int64(i + 1), At: at, Frame: frame})
	}
}
