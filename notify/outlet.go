package notify

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Sink is a channel notifications go out through.
type Sink interface {
	// Name identifies the sink in metrics, logs and notify/test.
	Name() string
	// Type is the sink's kind of channel ("webhook", "ntfy").
	Type() string
	// Wants reports whether the user asked this sink for kind k.
	Wants(k Kind) bool
	// Withdraws reports whether the channel can take a notification back;
	// a withdrawal is sent only to sinks that can.
	Withdraws() bool
	// Send makes one attempt; the outlet retries. A Permanent error is not
	// retried.
	Send(ctx context.Context, n Notification) error
}

// Permanent marks an error a retry cannot fix (a 4xx answer, a redirect).
type Permanent struct{ Err error }

func (p Permanent) Error() string { return p.Err.Error() }
func (p Permanent) Unwrap() error { return p.Err }

// Retry settings of every sink: attempts after the first, and the first
// wait, doubled for each attempt after.
const (
	defaultRetries = 3
	defaultBackoff = 500 * time.Millisecond
	// queueSize bounds the notifications waiting for one sink. A flood
	// beyond it is coalesced into one notification that says how many.
	queueSize = 64
)

// outlet is one sink's queue and the goroutine that drains it: a sink that
// is slow, failing or gone delays only its own notifications.
type outlet struct {
	sink    Sink
	metrics *metrics
	status  *statusBook
	log     *zap.Logger
	retries int
	backoff time.Duration
	// delivered, for tests, hears of every delivery's outcome.
	delivered func(sink string, n Notification, err error)

	mu     sync.Mutex
	queue  []Notification // oldest first, at most queueSize
	excess int            // notifications the full queue coalesced
	wake   chan struct{}  // cap 1: something was queued
}

func newOutlet(s Sink, m *metrics, st *statusBook, log *zap.Logger) *outlet {
	o := &outlet{sink: s, metrics: m, status: st, log: log.With(zap.String("sink", s.Name())),
		retries: defaultRetries, backoff: defaultBackoff, wake: make(chan struct{}, 1)}
	if r, ok := s.(interface{ RetryPolicy() (int, time.Duration) }); ok {
		o.retries, o.backoff = r.RetryPolicy()
	}
	return o
}

func (o *outlet) wants(k Kind) bool {
	return k == KindTest || k == KindCoalesced || o.sink.Wants(k)
}

// notify queues n if the sink wants its kind.
func (o *outlet) notify(n Notification) {
	if !o.wants(n.Kind) {
		return
	}
	o.mu.Lock()
	if len(o.queue) >= queueSize {
		o.excess++
		o.mu.Unlock()
		o.metrics.count(o.sink.Name(), n.Kind, resultCoalesced)
		return
	}
	o.queue = append(o.queue, n)
	o.mu.Unlock()
	o.poke()
}

// withdraw takes back n: still queued, it is simply not sent; already
// sent, its withdrawal is queued if the channel can take one back.
func (o *outlet) withdraw(n Notification) {
	if !o.wants(n.Kind) {
		return
	}
	o.mu.Lock()
	for i, q := range o.queue {
		if q.ID == n.ID && q.Action == ActionNotify {
			o.queue = append(o.queue[:i], o.queue[i+1:]...)
			o.mu.Unlock()
			return
		}
	}
	if !o.sink.Withdraws() || len(o.queue) >= queueSize {
		o.mu.Unlock()
		return
	}
	o.queue = append(o.queue, n)
	o.mu.Unlock()
	o.poke()
}

func (o *outlet) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued notification; once the queue is empty, the
// coalesced excess, as one notification.
func (o *outlet) next() (Notification, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.queue) > 0 {
		n := o.queue[0]
		o.queue = o.queue[1:]
		return n, true
	}
	if o.excess > 0 {
		n := Notification{ID: fmt.Sprintf("coalesced/%d", time.Now().UnixNano()), Kind: KindCoalesced,
			Action: ActionNotify, Title: "More agents need you",
			Body: fmt.Sprintf("%d more notifications came at once; open the console to see them all", o.excess),
			Time: time.Now().UTC()}
		o.excess = 0
		return n, true
	}
	return Notification{}, false
}

func (o *outlet) run(ctx context.Context) {
	for {
		n, ok := o.next()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-o.wake:
				continue
			}
		}
		err := o.deliver(ctx, n)
		if o.delivered != nil && ctx.Err() == nil {
			o.delivered(o.sink.Name(), n, err)
		}
	}
}

// deliver sends n with retries and counts the outcome once.
func (o *outlet) deliver(ctx context.Context, n Notification) error {
	var err error
	wait := o.backoff
	for attempt := 0; attempt <= o.retries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			wait *= 2
		}
		if err = o.sink.Send(ctx, n); err == nil {
			o.metrics.count(o.sink.Name(), n.Kind, resultSent)
			o.status.succeeded(o.sink)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.As(err, new(Permanent)) {
			break
		}
	}
	o.metrics.count(o.sink.Name(), n.Kind, resultFailed)
	o.status.failed(o.sink, err)
	o.log.Warn("notification not sent", zap.String("kind", string(n.Kind)), zap.String("action", n.Action), zap.Error(err))
	return err
}
