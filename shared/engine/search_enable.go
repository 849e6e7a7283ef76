// The way into the search's code from the rest of the engine. A program
// runs scenarios' search blocks when it imports package search
// (shared/engine/search), which calls EnableSearch; a program that does
// not (the Cloudflare Worker, where a search would cost more CPU time
// and code than its plan gives) refuses a search block at "search", and
// the linker leaves the search's code out of it, since nothing else
// reaches that code.

package engine

import (
	"context"
	"encoding/json"
)

// searching is this program's search, nil until EnableSearch.
var searching *searchCode

// A searchCode is the search's entry points, as the rest of the engine
// calls them.
type searchCode struct {
	check        func(c *SearchCheck, sc *Scenario)
	estimate     func(sc *Scenario) int64
	estimateSize func(sc *Scenario) float64
	start        func(sc *Scenario) (*searchRun, error)
	run          func(r *searchRun, ctx context.Context, opt Options) (*SearchResult, error)
	candidate    func(sc *Scenario, settings map[string]json.RawMessage) (Strategy, error)
	isOwn        func(sc *Scenario, settings map[string]json.RawMessage) bool
}

// EnableSearch makes this program run scenarios' search blocks.
// Package search calls it as it is imported (in its init, so before
// main; a package-level initialiser elsewhere that validates a search
// block may run before it); a program that never calls it refuses every
// search block and does not link the search's code.
func EnableSearch() {
	searching = &searchCode{
		check:        checkSearch,
		estimate:     searchEstimate,
		estimateSize: searchEstimateSize,
		start:        startSearchRun,
		run:          (*searchRun).runRounds,
		candidate:    (*Scenario).searchCandidate,
		isOwn:        (*Scenario).isSearchStrategy,
	}
}

// Searches reports whether this program runs scenarios' search blocks
// (EnableSearch).
func Searches() bool { return searching != nil }

// errNoSearch is what a program without searches says of a search.
var errNoSearch = Errors{{Path: "search", Value: "a search", Message: "is not run by this build"}}

// search checks a search block, or refuses it in a program without
// searches.
func (v *validator) search(sc *Scenario, deps depNames, calls map[string]bool) {
	if searching == nil {
		v.add("search", "a search", "is not run by this build (the Cloudflare Worker); run it with retrylab run or a self-hosted retrylab serve")
		return
	}
	searching.check(&SearchCheck{v: v, deps: deps, calls: calls}, sc)
}

// estimateSearch returns the estimated cost of sc's search, in events
// (0 in a program without searches, which refuses it).
func estimateSearch(sc *Scenario) int64 {
	if searching == nil {
		return 0
	}
	return searching.estimate(sc)
}

// estimateSearchSize returns about how many numbers sc's search's result
// holds (0 in a program without searches).
func estimateSearchSize(sc *Scenario) float64 {
	if searching == nil {
		return 0
	}
	return searching.estimateSize(sc)
}

// newSearchRun returns sc's search ready to run, or refuses it in a
// program without searches.
func newSearchRun(sc *Scenario) (*searchRun, error) {
	if searching == nil {
		return nil, errNoSearch
	}
	return searching.start(sc)
}

// run runs the search's rounds and returns what it found, its
// simulations counted in p. Run calls it on a search newSearchRun
// started, so only in a program with searches.
func (r *searchRun) run(ctx context.Context, opt Options, p *progress) (*SearchResult, error) {
	r.c.p = p
	return searching.run(r, ctx, opt)
}

// SearchCandidate returns the strategy a point of sc's search stands for:
// the search's strategy with each knob set to the value settings (a
// SearchPoint's) give it. Views use it to offer a point as a strategy. In
// a program without searches it returns an error: no scenario of it has
// a search.
func (sc *Scenario) SearchCandidate(settings map[string]json.RawMessage) (Strategy, error) {
	if searching == nil {
		return Strategy{}, errNoSearch
	}
	return searching.candidate(sc, settings)
}

// IsSearchStrategy reports whether the candidate of settings (a
// SearchPoint's) is the search's strategy as the scenario has it: the
// same strategy as the search compares its candidates (canonical JSON,
// without the name). A recommendation of that point says to keep what
// one has. False in a program without searches.
func (sc *Scenario) IsSearchStrategy(settings map[string]json.RawMessage) bool {
	return searching != nil && searching.isOwn(sc, settings)
}
