//go:build !nosearch

package view

import (
	"context"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// builtinView runs a built-in (its own search, or the default search of
// its first strategy when defaultSearch), with runs seeds when runs > 0.
func builtinView(t *testing.T, slug string, defaultSearch bool, runs int) *View {
	t.Helper()
	b, ok := scenarios.Get(slug)
	if !ok {
		t.Fatalf("no built-in %s", slug)
	}
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if defaultSearch {
		sc.Search = engine.DefaultSearchFor(sc, sc.Strategies[0].Name)
	}
	if runs > 0 {
		sc.Runs, sc.Seeds = runs, nil
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	v := Of(sc, res, Options{})
	if v.Search == nil {
		t.Fatal("no search in the view")
	}
	return v
}

// TestSearchRecommendationInWords: the recommendation names its settings
// and metrics in words, says the constraints hold on average and where
// the worst seed falls outside one, which knobs make no difference among
// the points that tie with it, and that the next distinct point's range
// on the first objective overlaps its own. The built-in
// e03b-policy-search: its recommendation's lowest seed has 99.05% against
// a bound of 99.1%; 3 or 4 attempts tie; its peak 20..30 overlaps the
// next point's 26..39.
func TestSearchRecommendationInWords(t *testing.T) {
	v := builtinView(t, "e03b-policy-search", false, 0)
	rec := v.Search.Recommendation
	wantIn(t, "the recommendation", rec,
		"3 attempts, backoff exponential 2 s → 20 s, jitter full, no budget gives the lowest peak calls in 100 ms on average over 10 seeds (25.4 calls; 20–30 calls over the seeds)",
		"that meet success rate in the affected window ≥ 99.1% (its worst seed: 99.05%) and peak calls in 100 ms ≤ 89.4 calls on average over the seeds",
		"with success rate in the affected window at 99.86%",
		"It ties on every objective with the next frontier point: max_attempts 3 or 4 does the same",
		"Over these 10 seeds it is not distinguishable on peak calls in 100 ms from the next distinct frontier point, 4 attempts, backoff exponential 1 s → 30 s, jitter full, no budget (32.5 calls, 26–39 calls): their ranges over the seeds overlap.")
	for _, raw := range []string{"{", "peak_per_100ms", "affected_success_rate", "null", "seeds)"} {
		if raw != "seeds)" && strings.Contains(rec, raw) {
			t.Errorf("the recommendation has %q:\n%s", raw, rec)
		}
	}
	// The page is about the search: its verdict leads with it.
	if want := "The search from C recommends 3 attempts, backoff exponential 2 s → 20 s, jitter full, no budget: peak calls in 100 ms 25.4 calls, success rate in the affected window 99.86%"; !strings.HasPrefix(v.Verdict, want) {
		t.Errorf("verdict %q\nwant it to start %q", v.Verdict, want)
	}
	wantIn(t, "the verdict", v.Verdict, " Of the strategies as written: D has the lowest")
}

// TestSearchFrontierTieNote: when every frontier point has the same
// objectives (the default search on thundering-herd-jitter, where the
// freeze fails every affected operation and the first burst makes the
// peak), the view recommends none, says which knob makes no difference
// and suggests objectives the knobs change, from their kinds.
func TestSearchFrontierTieNote(t *testing.T) {
	v := builtinView(t, "thundering-herd-jitter", true, 0)
	sv := v.Search
	if sv.Recommendation != "" {
		t.Errorf("recommended: %s", sv.Recommendation)
	}
	wantIn(t, "the note", sv.Note,
		"No objective separates the 140 frontier points: all have success rate in the affected window 0.00% and peak calls in 100 ms 1000 calls on 1 seed only, and the other 52 candidates of the last round that meet the constraints do worse.",
		"max_attempts changes neither success rate in the affected window nor peak calls in 100 ms here",
		"None is recommended: choose objectives the knobs change, such as ",
		"which jitter can change")
	if !strings.HasPrefix(v.Verdict, "The search from no-jitter recommends no setting") {
		t.Errorf("verdict %q", v.Verdict)
	}
}

// TestSearchOneSeed: a recommendation from one seed says so, and says
// its constraints met on that seed, not on average over the seeds.
func TestSearchOneSeed(t *testing.T) {
	b, _ := scenarios.Get("e03b-synchronized-recovery")
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs, sc.Seeds = 1, nil
	sc.Search = engine.DefaultSearch("C")
	sc.Search.Constraints = []engine.Constraint{{Metric: "success_rate", Op: engine.OpAtLeast, Value: 0.5}}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := Of(sc, res, Options{}).Search.Recommendation
	wantIn(t, "the recommendation", rec, "on its 1 seed (", "that meet success rate ≥ 50%, out of", "It rests on 1 seed only: run more seeds before trusting it.")
	if strings.Contains(rec, "1 seeds") || strings.Contains(rec, "not distinguishable") || strings.Contains(rec, "over the seeds") {
		t.Errorf("the recommendation:\n%s", rec)
	}
}
