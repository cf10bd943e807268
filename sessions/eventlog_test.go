package sessions

import (
	"testing"
	"time"
)

func fill(l *eventLog, from, to int64, at time.Time, step time.Duration) {
	for seq := from; seq <= to; seq++ {
		l.add(&Event{Seq: seq, At: at.Add(time.Duration(seq) * step)})
	}
}

func seqs(evs []*Event) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func TestEventLogKeepsMinimumAndReportsGap(t *testing.T) {
	l := newEventLog(5, 100, 1<<20, time.Minute)
	fill(l, 1, 12, time.Now(), time.Hour) // each an hour apart: only minEvents are kept
	got, ok := l.since(7)
	if !ok || len(got) != 5 || got[0].Seq != 8 || got[4].Seq != 12 {
		t.Fatalf("since(7) = %v, %v; want 8..12", seqs(got), ok)
	}
	if _, ok := l.since(6); ok {
		t.Fatal("since(6) must report a gap: 7 was dropped")
	}
	if got, ok := l.since(12); !ok || len(got) != 0 {
		t.Fatalf("since(last) = %v, %v; want nothing, no gap", seqs(got), ok)
	}
}

func TestEventLogKeepsRecentEventsBeyondMinimum(t *testing.T) {
	now := time.Now()
	l := newEventLog(5, 1000, 1<<20, time.Minute)
	fill(l, 1, 300, now, time.Millisecond) // all within minAge
	if got, ok := l.since(0); !ok || len(got) != 300 {
		t.Fatalf("recent events dropped: kept %d, gap %v", len(got), !ok)
	}
	l2 := newEventLog(5, 50, 1<<20, time.Minute)
	fill(l2, 1, 300, now, time.Millisecond)
	if got, _ := l2.since(250); len(got) != 50 {
		t.Fatalf("maxEvents not enforced: %d kept", len(got))
	}
}

// The byte bound holds even for events young enough and few enough to be
// kept by the count and age rules: the oldest go, and asking for them is a
// gap. The newest event is kept whatever its size.
func TestEventLogBoundedByBytes(t *testing.T) {
	const frame, limit = 1000, 10_000
	l := newEventLog(100, 1000, limit, time.Hour)
	for seq := int64(1); seq <= 50; seq++ {
		l.add(&Event{Seq: seq, At: time.Now(), Frame: make([]byte, frame)})
		if l.heldBytes() > limit {
			t.Fatalf("after seq %d: %d bytes held, over %d", seq, l.heldBytes(), limit)
		}
	}
	got, ok := l.since(40)
	if !ok || len(got) != 10 || got[0].Seq != 41 {
		t.Fatalf("since(40) = %v, %v; want 41..50", seqs(got), ok)
	}
	if _, ok := l.since(39); ok {
		t.Fatal("since(39) must report a gap: 40 was dropped for bytes")
	}
	l.add(&Event{Seq: 51, At: time.Now(), Frame: make([]byte, 3*limit)})
	if got, ok := l.since(50); !ok || len(got) != 1 || l.heldBytes() != 3*limit {
		t.Fatalf("an event over the bound alone: since(50) = %v, %v, %d bytes", seqs(got), ok, l.heldBytes())
	}
	l.release()
	if l.heldBytes() != 0 {
		t.Fatalf("released, %d bytes still counted", l.heldBytes())
	}
}
