//go:build !nosearch

package view

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestSearchLeadSaysWhenNothingIsGained runs the default search of each of
// E03-B's strategies and checks the lead's claim against the result: it
// says that keeping the strategy as written is as good exactly when the
// recommended point does better than it on no objective beyond the seeds'
// spread, and it never says so of a point that is the strategy itself.
func TestSearchLeadSaysWhenNothingIsGained(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four searches")
	}
	said, unsaid := 0, 0
	for _, name := range []string{"A", "B", "C", "D"} {
		sc := mustBuiltin(t, "e03b-synchronized-recovery")
		sc.Search = engine.DefaultSearchFor(sc, name)
		res, err := engine.Run(context.Background(), sc, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lead := searchLead(sc, res)
		claims := strings.Contains(lead, "keeping "+name+" is as good")
		r := res.Search
		if r.Recommendation == nil || keeps(sc, r) {
			if claims {
				t.Errorf("%s: %q", name, lead)
			}
			continue
		}
		var written engine.StrategyResult
		for _, st := range res.Strategies {
			if st.Name == name {
				written = st
			}
		}
		pair := []engine.StrategyResult{{Metrics: r.Recommendation.Metrics, Spread: r.Recommendation.Spread, Quantiles: r.Recommendation.Quantiles}, written}
		gains := false
		for _, o := range sc.Search.Objectives {
			m, _ := MetricOf(o.Metric)
			m.Better = map[engine.Goal]int{engine.GoalMax: 1, engine.GoalMin: -1}[o.Goal]
			gains = gains || better(pair, m, 0, 1, len(res.Seeds) >= TailSeeds)
		}
		if claims == gains {
			t.Errorf("%s: the recommendation gains %v beyond the spread, and the lead says %q", name, gains, lead)
		}
		if claims {
			said++
		} else {
			unsaid++
		}
		t.Logf("%s: %s", name, lead)
	}
	t.Logf("said %d, not said %d", said, unsaid)
}

// TestSearchLeadComparesTailsFromTailSeeds: the lead says that keeping
// the strategy as written is as good when the recommended point's range
// over the seeds overlaps its own: lowest to highest below TailSeeds
// seeds, 5th to 95th percentiles from TailSeeds on. Peaks 20..33 and
// 26..39 overlap; percentiles 22..28 and 29..36 do not.
func TestSearchLeadComparesTailsFromTailSeeds(t *testing.T) {
	const key = "peak_per_100ms"
	sc := &engine.Scenario{
		Strategies: []engine.Strategy{{Name: "C", Policy: engine.Policy{MaxAttempts: 3}}},
		Search: &engine.Search{Strategy: "C", Knobs: []engine.Knob{{Path: "max_attempts", Values: []json.RawMessage{json.RawMessage(`2`), json.RawMessage(`3`)}}},
			Objectives: []engine.Objective{{Metric: key, Goal: engine.GoalMin}}},
	}
	p := engine.SearchPoint{Settings: map[string]json.RawMessage{"max_attempts": json.RawMessage(`2`)},
		Spread: map[string]engine.MinMax{key: {Min: 20, Max: 33}}, Quantiles: map[string]engine.Quantiles{key: {P5: 22, P50: 25, P95: 28}}}
	p.Metrics.PeakPer100ms = 25
	written := engine.StrategyResult{Name: "C", Spread: map[string]engine.MinMax{key: {Min: 26, Max: 39}}, Quantiles: map[string]engine.Quantiles{key: {P5: 29, P50: 32, P95: 36}}}
	written.Metrics.PeakPer100ms = 32
	for seeds, claims := range map[int]bool{TailSeeds - 1: true, TailSeeds: false} {
		res := &engine.Result{Seeds: make([]int64, seeds), Strategies: []engine.StrategyResult{written},
			Search: &engine.SearchResult{Recommendation: &engine.Recommendation{SearchPoint: p}, Frontier: []engine.SearchPoint{p}}}
		lead := searchLead(sc, res)
		if !strings.HasPrefix(lead, "The search from C recommends 2 attempts: peak calls in 100 ms 25 calls") ||
			strings.Contains(lead, "Against C as written (peak calls in 100 ms 32 calls) it does better on no objective beyond the seeds' spread: keeping C is as good on these seeds.") != claims {
			t.Errorf("%d seeds: %q; want it to say that keeping C is as good: %v", seeds, lead, claims)
		}
	}
}
