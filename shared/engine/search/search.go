// Package search is the engine's search ("What should I ship?": a
// scenario's search block, its candidates, knobs, levels and
// recommendations; see engine.Search and engine.SearchResult). A program
// runs searches when it imports this package: cmd/retrylab and the
// browser's engine (wasm) do, the Cloudflare Worker (cmd/worker) does
// not, and so refuses a search block at "search" and links none of the
// search's code. The package is built on the engine's exported API
// (engine.Candidates runs its candidates, engine.SearchCheck checks its
// block) and hands the engine its entry points, as image/png registers
// a format with package image, through engine.EnableSearch.
package search

import "github.com/retrylab/retrylab/shared/engine"

func init() {
	engine.EnableSearch(engine.SearchCode{
		Check:        checkSearch,
		Estimate:     searchEstimate,
		EstimateSize: searchEstimateSize,
		Start:        start,
		Candidate:    searchCandidate,
		IsOwn:        isSearchStrategy,
	})
}

// start compiles sc's search's candidates on each of its variants, ready
// to run (engine.SearchCode.Start).
func start(sc *engine.Scenario) (*engine.SearchRun, error) {
	r, err := startSearchRun(sc)
	if err != nil {
		return nil, err
	}
	return &engine.SearchRun{Candidates: r.c, Simulations: r.simulations(), Run: r.runRounds}, nil
}
