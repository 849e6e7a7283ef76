//go:build !nosearch

package view

import (
	"context"
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
