//go:build nometrics

// Without Prometheus, which costs the Worker 1.3 MB gzipped (metrics.go is
// the other side of this pair).

package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// Without Prometheus (the Worker build): the same fields, counting nothing.
type metrics struct {
	cacheHits, shed counter
	runSeconds      histogram
}

type counter struct{}

func (counter) Inc() {}

type histogram struct{}

func (histogram) start() func() { return func() {} }

func newMetrics() *metrics { return &metrics{} }

func (m *metrics) watchSlots(chan struct{}) {}

func (m *metrics) handler() http.Handler { return http.NotFoundHandler() }

func (m *metrics) middleware(next echo.HandlerFunc) echo.HandlerFunc { return next }
