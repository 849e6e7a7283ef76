package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestSearchFrontierTiesRecommendsNone: on the built-in
// thundering-herd-jitter every frontier point of the default search has
// the same objectives (no operation started during the freeze succeeds,
// and the first burst makes the peak), while other candidates do worse:
// no objective separates the frontier, so the search recommends none and
// says why, rather than present the first of equals as a choice.
func TestSearchFrontierTiesRecommendsNone(t *testing.T) {
	sc := builtinWithPresets(t, "thundering-herd-jitter")
	sc.Search = DefaultSearch(sc.Strategies[0].Name)
	s := runSearch(t, sc, Options{}).Search
	if s.Recommendation != nil {
		t.Errorf("recommended %v: %s", s.Recommendation.Settings, s.Recommendation.Reason)
	}
	if len(s.Frontier) < 2 || s.Feasible <= len(s.Frontier) {
		t.Fatalf("%d frontier points of %d feasible; want a frontier that ties and candidates it dominates", len(s.Frontier), s.Feasible)
	}
	want := "No objective separates the 140 frontier points: all have affected_success_rate 0.00% and peak_per_100ms 1000 on average over 1 seed (the other 52 candidates"
	if !strings.HasPrefix(s.Note, want) {
		t.Errorf("note %q\nwant it to start %q", s.Note, want)
	}
}

// TestSearchOneSeedGrammar: a search on one seed says "1 seed".
func TestSearchOneSeedGrammar(t *testing.T) {
	sc := searchE03B(t, 1, `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 3]}],
		"objectives": [{"metric": "peak_per_100ms", "goal": "min"}]}`)
	s := runSearch(t, sc, Options{}).Search
	if s.Recommendation == nil {
		t.Fatalf("no recommendation: %s", s.Note)
	}
	if r := s.Recommendation.Reason; !strings.Contains(r, "over 1 seed.") {
		t.Errorf("reason %q", r)
	}
}

// TestSearchQuantilesFromTailSeeds: from TailSeeds seeds, each frontier
// point carries its objectives' and constraints' percentiles over the
// seeds, which the view compares as it compares strategies; below, none.
func TestSearchQuantilesFromTailSeeds(t *testing.T) {
	search := `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 4]}],
		"objectives": [{"metric": "affected_success_rate", "goal": "max"}],
		"constraints": [{"metric": "peak_per_100ms", "op": "<=", "value": 500}]}`
	for _, runs := range []int{TailSeeds - 1, TailSeeds} {
		s := runSearch(t, searchE03B(t, runs, search), Options{}).Search
		for _, p := range s.Frontier {
			q, ok := p.Quantiles["affected_success_rate"]
			_, okc := p.Quantiles["peak_per_100ms"]
			switch {
			case runs < TailSeeds && p.Quantiles != nil:
				t.Errorf("%d seeds: quantiles %v", runs, p.Quantiles)
			case runs >= TailSeeds && (!ok || !okc):
				t.Errorf("%d seeds: quantiles %v, want both metrics'", runs, p.Quantiles)
			case runs >= TailSeeds:
				mm := p.Spread["affected_success_rate"]
				if q.P5 < mm.Min || q.P95 > mm.Max || q.P5 > q.P95 {
					t.Errorf("%d seeds: p5..p95 %v..%v outside the range %v", runs, q.P5, q.P95, mm)
				}
			}
		}
	}
}

// TestDefaultSearchForHedging: the default search of a hedged strategy
// varies only what has a meaning for copies (their number, a budget, the
// delay and its own timeout), adds a latency objective, and is valid.
func TestDefaultSearchForHedging(t *testing.T) {
	sc := builtinWithPresets(t, "hedged-requests")
	sc.Sweep = nil
	sc.Runs = 1
	name := sc.Strategies[1].Name
	if sc.Strategies[1].Hedging == nil {
		t.Fatalf("strategy %q does not hedge", name)
	}
	s := DefaultSearchFor(sc, name)
	var paths []string
	for _, k := range s.Knobs {
		paths = append(paths, k.Path)
	}
	if !slices.Equal(paths, []string{"max_attempts", "budget", "attempt_timeout", "hedging.delay"}) {
		t.Errorf("knobs %v", paths)
	}
	if want := []Objective{{"affected_success_rate", GoalMax}, latencyObjective, {"peak_per_100ms", GoalMin}}; !slices.Equal(s.Objectives, want) {
		t.Errorf("objectives %v, want %v", s.Objectives, want)
	}
	sc.Search = s
	if err := sc.Validate(); err != nil {
		t.Errorf("the default search of a hedged strategy is not valid: %v", err)
	}
	// The unhedged one (with its attempt timeout): DefaultSearch's four
	// knobs and attempt_timeout, without the latency objective.
	got := DefaultSearchFor(sc, sc.Strategies[0].Name)
	if len(got.Knobs) != 5 || got.Knobs[4].Path != "attempt_timeout" || len(got.Objectives) != 2 {
		t.Errorf("unhedged: knobs %s, objectives %v", mustJSON(t, got.Knobs), got.Objectives)
	}
}
