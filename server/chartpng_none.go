//go:build nopng

// Without the PNG charts (the Worker build, for size): pages have no
// og:image, and /s/ID/chart.png is a 404. chartpng.go is the other side of
// this pair.

package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// canDrawPNG says whether this build serves charts as PNG.
const canDrawPNG = false

func (s *Server) handleChartPNG(c echo.Context) error {
	return echo.NewHTTPError(http.StatusNotFound, "this server does not draw PNG charts; use chart.svg")
}
