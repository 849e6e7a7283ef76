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
var searching *SearchCode

// A SearchCode is the search's entry points, as the rest of the engine
// calls them: package search hands them to EnableSearch.
type SearchCode struct {
	// Check checks sc's search block into c.
	Check func(c *SearchCheck, sc *Scenario)
	// Estimate returns the estimated cost of sc's search, in events.
	Estimate func(sc *Scenario) int64
	// EstimateSize returns about how many numbers sc's search's result
	// holds.
	EstimateSize func(sc *Scenario) float64
	// Start returns sc's search ready to run; sc is valid.
	Start func(sc *Scenario) (*SearchRun, error)
	// Candidate and IsOwn are SearchCandidate and IsSearchStrategy.
	Candidate func(sc *Scenario, settings map[string]json.RawMessage) (Strategy, error)
	IsOwn     func(sc *Scenario, settings map[string]json.RawMessage) bool
}

// A SearchRun is a search ready to run (SearchCode.Start): its
// candidates, compiled, how many simulations it runs, and its rounds,
// which Run runs after the scenario's own simulations.
type SearchRun struct {
	Candidates  *Candidates
	Simulations int
	// Run runs the rounds on Candidates and returns what the search
	// found.
	Run func(ctx context.Context, opt Options) (*SearchResult, error)
}

// EnableSearch makes this program run scenarios' search blocks with
// code. Package search calls it as it is imported (in its init, so
// before main; a package-level initialiser elsewhere that validates a
// search block may run before it); a program that never calls it
// refuses every search block and does not link the search's code.
func EnableSearch(code SearchCode) { searching = &code }

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
	searching.Check(&SearchCheck{v: v, deps: deps, calls: calls}, sc)
}

// estimateSearch returns the estimated cost of sc's search, in events
// (0 in a program without searches, which refuses it).
func estimateSearch(sc *Scenario) int64 {
	if searching == nil {
		return 0
	}
	return searching.Estimate(sc)
}

// estimateSearchSize returns about how many numbers sc's search's result
// holds (0 in a program without searches).
func estimateSearchSize(sc *Scenario) float64 {
	if searching == nil {
		return 0
	}
	return searching.EstimateSize(sc)
}

// newSearchRun returns sc's search ready to run, or refuses it in a
// program without searches.
func newSearchRun(sc *Scenario) (*SearchRun, error) {
	if searching == nil {
		return nil, errNoSearch
	}
	return searching.Start(sc)
}

// run runs the search's rounds and returns what it found, its
// simulations counted in p. Run calls it on a search newSearchRun
// started, so only in a program with searches.
func (r *SearchRun) run(ctx context.Context, opt Options, p *progress) (*SearchResult, error) {
	r.Candidates.p = p
	return r.Run(ctx, opt)
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
	return searching.Candidate(sc, settings)
}

// IsSearchStrategy reports whether the candidate of settings (a
// SearchPoint's) is the search's strategy as the scenario has it: the
// same strategy as the search compares its candidates (canonical JSON,
// without the name). A recommendation of that point says to keep what
// one has. False in a program without searches.
func (sc *Scenario) IsSearchStrategy(settings map[string]json.RawMessage) bool {
	return searching != nil && searching.IsOwn(sc, settings)
}
