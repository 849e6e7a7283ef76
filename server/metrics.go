//go:build !nometrics

// The Worker build (-tags nometrics) leaves Prometheus out: metrics_none.go.

package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus metrics, in a registry of its own so
// that tests can build many servers.
type metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	cacheHits  prometheus.Counter
	shed       prometheus.Counter
	runSeconds histogram
}

type histogram struct{ prometheus.Histogram }

// start times something; calling the returned function observes it.
func (h histogram) start() func() {
	t := time.Now()
	return func() { h.Observe(time.Since(t).Seconds()) }
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "retrylab_http_requests_total", Help: "HTTP requests by route and status.",
	}, []string{"route", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "retrylab_http_request_seconds", Help: "HTTP request latency by route.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
	}, []string{"route"})
	m.cacheHits = prometheus.NewCounter(prometheus.CounterOpts{Name: "retrylab_result_cache_hits_total", Help: "Results served from the cache."})
	m.shed = prometheus.NewCounter(prometheus.CounterOpts{Name: "retrylab_runs_shed_total", Help: "Runs refused with 503 because every run slot was taken."})
	m.runSeconds = histogram{prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "retrylab_run_seconds", Help: "Time to simulate a scenario on the server.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	})}
	m.reg.MustRegister(m.requests, m.latency, m.cacheHits, m.shed, m.runSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// watchSlots reports how many of the run slots are taken, by runs and
// probes under way: retrylab_runs_running.
func (m *metrics) watchSlots(slots chan struct{}) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "retrylab_runs_running", Help: "Runs and probes holding a run slot now.",
	}, func() float64 { return float64(len(slots)) }))
}

func (m *metrics) handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// middleware counts requests by route pattern (not by URL, which would make
// one series per share ID).
func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		t := time.Now()
		err := next(c)
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		// Errors are answers by now (the error middleware is inside this
		// one): the response has the status.
		m.requests.WithLabelValues(route, strconv.Itoa(c.Response().Status)).Inc()
		m.latency.WithLabelValues(route).Observe(time.Since(t).Seconds())
		return err
	}
}
