//go:build nosearch

// Without progress streams (the Worker build, for size): a request for the
// result as Server-Sent Events answers 501 saying how to get it instead.
// progress.go is the other side of this pair.

package server

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// errNoStream answers a request for the result as an event stream in this
// build.
var errNoStream = echo.NewHTTPError(http.StatusNotImplemented,
	"this server (the Cloudflare Workers build) does not stream a run's progress; ask for the result without Accept: text/event-stream (it is answered once the run is done), or use a self-hosted server (retrylab serve)")

func (s *Server) handleResultOrStream(c echo.Context) error {
	if strings.Contains(c.Request().Header.Get("Accept"), "text/event-stream") {
		return errNoStream
	}
	return s.handleResult(c)
}

// A runProgress is nothing in this build: no stream reads it.
type runProgress struct{}

func (p *runProgress) hook() func(done, total int) { return nil }
