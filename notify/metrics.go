package notify

import "github.com/prometheus/client_golang/prometheus"

// Results a notification can have at a sink.
const (
	resultSent       = "sent"
	resultSuppressed = "suppressed" // someone was looking
	resultFailed     = "failed"     // every attempt failed
	resultCoalesced  = "coalesced"  // a full queue folded it into one
)

type metrics struct {
	reg   prometheus.Registerer
	total *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{reg: reg, total: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "cdevd", Name: "notifications_total",
		Help: "Notifications by sink, kind and result (sent, suppressed: someone was looking, failed, coalesced).",
	}, []string{"sink", "kind", "result"})}
	if reg != nil {
		reg.MustRegister(m.total)
	}
	return m
}

func (m *metrics) count(sink string, k Kind, result string) {
	m.total.WithLabelValues(sink, string(k), result).Inc()
}

// dropped exposes the events a full inbox dropped.
func (m *metrics) dropped(f func() float64) {
	if m.reg == nil {
		return
	}
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Namespace: "cdevd", Name: "notification_events_dropped_total",
		Help: "Session events the notifier could not take in time (its inbox was full).",
	}, f))
}
