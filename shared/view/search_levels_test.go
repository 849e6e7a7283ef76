//go:build !nosearch

package view

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// layeredView runs the built-in failover-incident on one seed with the
// given knobs (JSON) from its strategy every-layer.
func layeredView(t *testing.T, knobs string) *SearchView {
	t.Helper()
	b, ok := scenarios.Get("failover-incident")
	if !ok {
		t.Fatal("no failover-incident")
	}
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs, sc.Seeds = 1, nil
	var s engine.Search
	if err := json.Unmarshal([]byte(`{"strategy": "every-layer", "knobs": `+knobs+`, "objectives": [{"metric": "affected_success_rate", "goal": "max"}]}`), &s); err != nil {
		t.Fatal(err)
	}
	sc.Search = &s
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	return Of(sc, res, Options{}).Search
}

// TestSearchViewInertAndSame: the view says which knob changed no metric
// (every-layer's outermost max_attempts, a level that never retries), and
// how many combinations were the same strategy, each distinct strategy one candidate.
func TestSearchViewInertAndSame(t *testing.T) {
	sv := layeredView(t, `[{"path": "max_attempts", "values": [2, 4]}, {"path": "retry_level", "values": ["every", 2]}]`)
	text := sv.Recommendation + sv.Note
	if !strings.Contains(text, "The knob max_attempts changed no metric on any seed: its values here are not a choice") {
		t.Errorf("no word of the inert knob in %q", text)
	}
	if !strings.Contains(sv.Summary, "1 of the 4 combinations of the knobs' values are the same strategy as an earlier one") {
		t.Errorf("summary %q", sv.Summary)
	}
	for _, p := range sv.Points {
		if c := p.Settings[1]; c != "every level" && c != "layer 2" {
			t.Errorf("retry_level cell %q", c)
		}
	}
}
