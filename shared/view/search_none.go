//go:build nosearch

// A build without searches (the Cloudflare Worker, where the engine
// refuses a search block): no result has a search to view, so the view
// leaves its code out. search_run.go is the other side of this pair.

package view

import (
	"encoding/json"

	"github.com/retrylab/retrylab/shared/engine"
)

// searchView is nil: this build runs no search.
func searchView(sc *engine.Scenario, res *engine.Result) *SearchView { return nil }

// searchLead is "": this build runs no search.
func searchLead(sc *engine.Scenario, res *engine.Result) string { return "" }

// RetryLevelCell writes a retry_level value as its JSON: this build has
// no search to show one of.
func RetryLevelCell(raw json.RawMessage) string { return string(raw) }

// FrontierStrategy is nil: this build runs no search, so no result has a
// frontier.
func FrontierStrategy(sc *engine.Scenario, res *engine.Result, name string) (*engine.Strategy, []string) {
	return nil, nil
}
