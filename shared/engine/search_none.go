//go:build nosearch

// A build without searches (the Cloudflare Worker, where a search would
// cost more CPU time and code than its plan gives): a scenario with a
// search block is invalid, with an error at "search" saying where
// searches run. search_run.go is the other side of this pair.

package engine

import (
	"context"
	"encoding/json"
)

// Searches is false: with the nosearch tag, a search block is invalid.
const Searches = false

func (v *validator) search(sc *Scenario, deps depNames, calls map[string]bool) {
	v.add("search", "a search", "is not run by this build (the Cloudflare Worker); run it with retrylab run or a self-hosted retrylab serve")
}

func estimateSearch(sc *Scenario) int64       { return 0 }
func estimateSearchSize(sc *Scenario) float64 { return 0 }
func newSearchRun(sc *Scenario) (*searchRun, error) {
	return nil, Errors{{Path: "search", Value: "a search", Message: "is not run by this build"}}
}

type searchRun struct{}

func (r *searchRun) simulations() int { return 0 }
func (r *searchRun) simSet() *simSet  { return nil }

func (r *searchRun) run(ctx context.Context, opt Options, p *progress) (*SearchResult, error) {
	return nil, nil
}

func (s *Search) settings(idx []int) map[string]json.RawMessage { return nil }

// SearchCandidate is not available in this build: no scenario of it has
// a search.
func (sc *Scenario) SearchCandidate(settings map[string]json.RawMessage) (Strategy, error) {
	return Strategy{}, Errors{{Path: "search", Value: "a search", Message: "is not run by this build"}}
}
