package transport

import (
	"strconv"
	"time"

	"github.com/cdevd/cdevd/rpc"
	"github.com/prometheus/client_golang/prometheus"
)

// otherMethod labels requests for names outside rpc.Methods, so a client
// sending random method names cannot grow the metrics without bound.
const otherMethod = "other"

func methodLabel(method string) string {
	if rpc.IsMethod(method) {
		return method
	}
	return otherMethod
}

// codeLabel is "ok" for a success, else the JSON-RPC error code.
func codeLabel(err *rpc.Error) string {
	if err == nil {
		return "ok"
	}
	return strconv.FormatInt(err.Code, 10)
}

type metrics struct {
	connsOpen     prometheus.Gauge
	connsTotal    prometheus.Counter
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	notifications prometheus.Counter
	slowClients   prometheus.Counter
	rejected      *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	const ns = "cdevd"
	m := &metrics{
		connsOpen: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: ns, Name: "connections_open", Help: "WebSocket connections currently open.",
		}),
		connsTotal: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Name: "connections_total", Help: "WebSocket connections accepted.",
		}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "requests_total",
			Help: `JSON-RPC requests and notifications by method ("other" for unknown names) and result code ("ok" or the error code).`,
		}, []string{"method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Name: "request_duration_seconds", Help: "Time spent in the method handler.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method"}),
		notifications: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Name: "notifications_sent_total", Help: "Notifications accepted into a connection's send queue.",
		}),
		slowClients: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Name: "slow_client_disconnects_total", Help: "Connections closed (1013) because their send queue overflowed.",
		}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "upgrades_rejected_total", Help: "Requests refused, by reason (host, origin, auth, capacity, path, tls).",
		}, []string{"reason"}),
	}
	reg.MustRegister(m.connsOpen, m.connsTotal, m.requests, m.duration, m.notifications, m.slowClients, m.rejected)
	return m
}

// count counts one request or notification, whether or not a handler ran.
func (m *metrics) count(method string, err *rpc.Error) {
	m.requests.WithLabelValues(methodLabel(method), codeLabel(err)).Inc()
}

// observe records how long a method's handler took.
func (m *metrics) observe(method string, d time.Duration) {
	m.duration.WithLabelValues(methodLabel(method)).Observe(d.Seconds())
}
