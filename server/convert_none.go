//go:build noconvert

// Without import and export (the Worker build, for size: shared/convert adds
// about 95 KB gzipped): POST /api/import and /s/ID/export answer 501 naming
// what does them, and pages have no Export panels. convert.go is the other
// side of this pair.

package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/view"
)

// canConvert says whether this build imports and exports configurations.
const canConvert = false

// importHint is "": this build does not tell configurations apart.
func importHint([]byte) string { return "" }

// errNoConvert answers the import and export routes in this build.
var errNoConvert = echo.NewHTTPError(http.StatusNotImplemented,
	"this server (the Cloudflare Workers build) does not import or export configurations; use the command line (retrylab import --from FORMAT FILE, retrylab export --to FORMAT SLUG|FILE) or a self-hosted server (retrylab serve)")

func (s *Server) handleImport(c echo.Context) error {
	// Read as the other POSTs read theirs: the Worker's glue fails on a
	// request whose body nothing read (cmd/worker drains it afterwards).
	if _, err := readBody(c.Request().Body, "configuration"); err != nil {
		return err
	}
	return errNoConvert
}

func (s *Server) handleExport(c echo.Context) error { return errNoConvert }

func exportPanel(id string, i int, st *engine.Strategy) *exportView { return nil }

func searchExports(id string, sv *view.SearchView) []*exportView { return nil }
