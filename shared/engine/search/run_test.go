package search

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// madeUp is outcomes of one seed: each variant's candidates' metrics.
type madeUp [][]engine.Metrics

func (m madeUp) Metrics(v, cand, i int) engine.Metrics { return m[v][cand] }

// MeanSpread: over one seed, the metrics themselves, each from itself to
// itself.
func (m madeUp) MeanSpread(v, cand, seeds int) (engine.Metrics, map[string]engine.MinMax) {
	x := m[v][cand]
	return x, map[string]engine.MinMax{
		"affected_success_rate": {Min: x.AffectedSuccessRate, Max: x.AffectedSuccessRate},
		"peak_per_100ms":        {Min: x.PeakPer100ms, Max: x.PeakPer100ms},
	}
}

// Applies: as in a scenario without a fault.
func (m madeUp) Applies(v int, name string) bool { return !engine.MayNotApply(name) }

// TestSearchWorstCase ranks made-up candidates by their worst case over
// two variants: the halving's order, the points' worst cases and
// binding variants, and the recommendation's sentence.
func TestSearchWorstCase(t *testing.T) {
	// Candidates' (affected_success_rate, peak_per_100ms) in variants
	// "a" and "b", on one seed.
	type ms struct{ asr, peak float64 }
	cands := [][2]ms{
		{{0.99, 30}, {0.84, 40}}, // the best average rate, the worst worst case of the feasible
		{{0.95, 45}, {0.94, 60}}, // a peak over 50 in b: misses the constraint
		{{0.90, 20}, {0.91, 25}}, // the best worst case: 0.90, in a
		{{0.97, 35}, {0.85, 30}},
	}
	s := &engine.Search{
		Strategy:    "C",
		Knobs:       []engine.Knob{{Path: "max_attempts", Values: []json.RawMessage{json.RawMessage("1"), json.RawMessage("2"), json.RawMessage("3"), json.RawMessage("4")}}},
		Objectives:  []engine.Objective{{Metric: "affected_success_rate", Goal: engine.GoalMax}, {Metric: "peak_per_100ms", Goal: engine.GoalMin}},
		Constraints: []engine.Constraint{{Metric: "peak_per_100ms", Op: engine.OpAtMost, Value: 50}},
		Across:      []engine.Variant{{Name: "a"}, {Name: "b"}},
	}
	out := madeUp{}
	for v := range 2 {
		out = append(out, nil)
		for _, m := range cands {
			var o engine.Metrics
			o.AffectedSuccessRate, o.PeakPer100ms = m[v].asr, m[v].peak
			out[v] = append(out[v], o)
		}
	}
	r := &searchRun{s: s, n: len(cands), nv: 2, out: out}
	for c, want := range []scores{
		{c: 0, means: []float64{0.84, 40, 40}},
		{c: 1, means: []float64{0.94, 60, 60}, shortfall: 0.2},
		{c: 2, means: []float64{0.90, 25, 25}},
		{c: 3, means: []float64{0.85, 35, 35}},
	} {
		if got := r.score(c, 1); !slices.Equal(got.means, want.means) || got.shortfall != want.shortfall {
			t.Errorf("candidate %d scores %+v, want %+v", c, got, want)
		}
	}
	// 2 beats 3 and 0 on both worst cases; 3 and 0 are on one front
	// (3 has the better rate, 0 the better peak); 1 misses the constraint.
	if got, want := r.rank([]int{0, 1, 2, 3}, 1), []int{2, 3, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
	p := r.point(3, 1)
	if p.Metrics.AffectedSuccessRate != 0.85 || p.Metrics.PeakPer100ms != 35 ||
		p.Binding["affected_success_rate"] != "b" || p.Binding["peak_per_100ms"] != "a" {
		t.Errorf("candidate 3's worst cases %v, %v in %v; want 0.85 in b, 35 in a",
			p.Metrics.AffectedSuccessRate, p.Metrics.PeakPer100ms, p.Binding)
	}
	if len(p.Variants) != 2 || p.Variants[0].Name != "a" || p.Variants[0].Metrics["peak_per_100ms"] != 35 || p.Variants[1].Metrics["affected_success_rate"] != 0.85 {
		t.Errorf("candidate 3's variants %+v", p.Variants)
	}
	res := &engine.SearchResult{Frontier: []engine.SearchPoint{}}
	r.frontier(res, []int{0, 1, 2, 3}, 1)
	if res.Feasible != 3 || len(res.Frontier) != 1 || res.Recommendation == nil {
		t.Fatalf("feasible %d, frontier %d, recommendation %v; want 3, 1, candidate 2", res.Feasible, len(res.Frontier), res.Recommendation)
	}
	want := `max_attempts 3 gives the highest worst-case mean affected_success_rate (90.00% in "a", the variant that binds) of the 1 frontier points that meet peak_per_100ms <= 50 in every variant on average, out of 4 candidates over 1 seed and 2 variants, with peak_per_100ms 25 at worst (in "b").`
	if got := res.Recommendation.Reason; got != want {
		t.Errorf("reason\n%s\nwant\n%s", got, want)
	}
	// A constraint no candidate meets in every variant: the note says
	// where the closest misses.
	s.Constraints = []engine.Constraint{{Metric: "peak_per_100ms", Op: engine.OpAtMost, Value: 24}}
	res = &engine.SearchResult{Frontier: []engine.SearchPoint{}}
	r.frontier(res, []int{0, 1, 2, 3}, 1)
	if want := `None of the 4 candidates of the last round meets peak_per_100ms <= 24 in every variant on average over 1 seed; the closest, max_attempts 3, has peak_per_100ms 25 (in "b").`; res.Note != want {
		t.Errorf("note\n%s\nwant\n%s", res.Note, want)
	}
}
