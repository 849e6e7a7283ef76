//go:build nosearch

// A build without searches (the Cloudflare Worker) has no Search section:
// the engine refuses a search block there. search.templ is the other side
// of this pair.

package server

import (
	"github.com/a-h/templ"

	"github.com/retrylab/retrylab/shared/view"
)

// searchView renders nothing: this build runs no search.
func searchView(id string, sv *view.SearchView, fig *chartView) templ.Component {
	return templ.NopComponent
}
