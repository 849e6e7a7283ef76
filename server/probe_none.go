//go:build nosearch

// Without the metastability probe (the Worker build, for size: it would
// link probe.Run): its routes answer 501 naming what runs it, and pages
// link to no probe. probe.go is the other side of this pair.

package server

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/engine"
)

// canProbe says whether this build runs metastability probes.
const canProbe = false

// errNoProbe answers the probe's routes in this build.
var errNoProbe = echo.NewHTTPError(http.StatusNotImplemented,
	"this server (the Cloudflare Workers build) does not run metastability probes; use the command line (retrylab probe SLUG|FILE --strategy NAME) or a self-hosted server (retrylab serve)")

func (s *Server) handleProbeAPI(c echo.Context) error  { return errNoProbe }
func (s *Server) handleProbePage(c echo.Context) error { return errNoProbe }

func probeValues(c echo.Context) url.Values { return url.Values{} }

func (s *Server) probeLinks(id string, sc *engine.Scenario) []strategyLink { return nil }

// probeRuns is nothing in this build.
type probeRuns struct{}

func newProbeRuns(cfg Config) *probeRuns { return nil }
