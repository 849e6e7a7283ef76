//go:build !nopng

// Charts as PNG for link previews (og:image): unfurlers such as Slack, X and
// LinkedIn take no SVG. The Worker build leaves this out (nopng) to fit its
// size limit; chartpng_none.go is the other side of this pair.

package server

import (
	"bytes"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/server/png"
	"github.com/retrylab/retrylab/shared/chart"
)

// canDrawPNG says whether this build serves charts as PNG.
const canDrawPNG = true

// handleChartPNG answers GET /s/:id/chart.png: the chart its query names
// (the attempts picture by default, in the light theme, since an image
// cannot follow the reader's), 1200 × 630 pixels as link previews want.
func (s *Server) handleChartPNG(c echo.Context) error {
	id := c.Param("id")
	opt, err := chartOptions(c)
	if err != nil {
		return err
	}
	if opt.Theme == "" || opt.Theme == "auto" {
		opt.Theme = "light"
	}
	opt.Width, opt.Height = 760, 399 // the proportions of 1200 × 630
	sub, err := s.begin(c, id, chartFits(opt))
	if sub == nil {
		return err
	}
	c.Response().Header().Set("Access-Control-Allow-Origin", "*")
	return s.serveCached(c, sub.builtin != nil, "image/png", func() ([]byte, error) {
		res, err := s.runs.result(c.Request().Context(), id, sub.sc)
		if err != nil {
			return nil, err
		}
		d, err := chart.Draw(res, withScenario(opt, sub.sc))
		if err != nil {
			return nil, err // a *chart.OptionError is a 400
		}
		var out bytes.Buffer
		if err := png.Chart(&out, d, 1200, 630); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	})
}
