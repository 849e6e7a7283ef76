package search_test

import (
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	_ "github.com/retrylab/retrylab/shared/engine/search"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestImportRunsSearches: importing package search is what makes a
// program run searches: engine.Searches is true, the built-ins with a
// search are listed, and their search block is valid and counted in the
// estimate. The other side, a program without the import, is the
// engine's TestSearchOffRefuses and make vet's check of cmd/worker.
func TestImportRunsSearches(t *testing.T) {
	if !engine.Searches() {
		t.Fatal("engine.Searches() is false with package search imported")
	}
	b, ok := scenarios.Get("e03b-policy-search")
	if !ok {
		t.Fatal("e03b-policy-search is not listed with package search imported")
	}
	sc, err := b.Parse()
	if err != nil {
		t.Fatalf("e03b-policy-search: %v", err)
	}
	without := *sc
	without.Search = nil
	if with, base := engine.Estimate(sc), engine.Estimate(&without); with <= base {
		t.Errorf("estimate %d with the search, %d without: the search's candidates are not counted", with, base)
	}
}
