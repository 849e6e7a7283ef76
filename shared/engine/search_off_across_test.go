package engine

import (
	"strings"
	"testing"
)

// TestSearchAcrossNotInThisBuild: a program without searches (one that
// does not import package search, as the Worker) refuses a search across
// variants as it refuses any search, at "search", before reading its
// variants.
func TestSearchAcrossNotInThisBuild(t *testing.T) {
	withoutSearch(t)
	sc, err := Decode([]byte(`{"version": 1, "name": "x", "workload": {"clients": 1, "rate": 1, "duration": "1s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}},
		"strategies": [{"name": "C", "max_attempts": 2}],
		"search": {"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 3]}],
			"objectives": [{"metric": "retries", "goal": "min"}],
			"across": [{"name": "as written"}, {"name": "slow", "path": "dependency.workers", "value": "not a number"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	es := AsErrors(sc.Validate())
	if len(es) != 1 || es[0].Path != "search" || !strings.Contains(es[0].Message, "is not run by this build") {
		t.Errorf("errors %v; want one, at search, saying this build runs no search", es)
	}
}

// TestSearchOffRefuses: in a program without searches, a search is
// refused where the engine meets one, and Searches says so; with package
// search imported (as these tests run), it runs.
func TestSearchOffRefuses(t *testing.T) {
	sc := searchE03B(t, 2, smallSearch)
	if !Searches() {
		t.Fatal("Searches() is false with package search imported")
	}
	withoutSearch(t)
	if Searches() {
		t.Error("Searches() is true without package search")
	}
	if _, err := Run(t.Context(), sc, Options{}); err == nil || !strings.Contains(err.Error(), "is not run by this build") {
		t.Errorf("Run: %v; want the search refused", err)
	}
	if _, err := sc.SearchCandidate(nil); err == nil {
		t.Error("SearchCandidate: no error")
	}
	if sc.IsSearchStrategy(nil) {
		t.Error("IsSearchStrategy: true")
	}
	if _, err := NewBatches(sc).Run(t.Context(), &Batch{Simulations: []int{0}}, Options{}); err == nil {
		t.Error("Batches.Run of a search's batch: no error")
	}
}
