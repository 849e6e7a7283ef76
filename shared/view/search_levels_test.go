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
	if !strings.Contains(text, "The knob max_attempts changed no metric on any seed: its values here are not a choice (it may act on a level that never gets to retry).") {
		t.Errorf("no word of the inert knob in %q", text)
	}
	if !strings.Contains(sv.Summary, "1 of the 4 combinations of the knobs' values is the same strategy as an earlier one") {
		t.Errorf("summary %q", sv.Summary)
	}
	for _, p := range sv.Points {
		if c := p.Settings[1]; c != "every level" && c != "layer 2" {
			t.Errorf("retry_level cell %q", c)
		}
	}
}

// TestSearchFrontierInWords: the frontier's cells say the settings in the
// recommendation's words, never as JSON or null: every-layer's backoffs
// and budgets on every level ("exponential 200 ms → 2 s", "no budget",
// "ratio 10% over 1 s"), and the recommended row is marked, alone; the
// strategy each row adds is described in those words too.
func TestSearchFrontierInWords(t *testing.T) {
	sv := layeredView(t, `[{"path": "levels[*].backoff", "values": [{"kind":"exponential","base":"200ms","max":"2s"}, {"kind":"exponential","base":"1s","max":"10s"}]},
		{"path": "levels[*].budget", "values": [null, {"kind":"ratio","ratio":0.1,"window":"1s"}]}]`)
	if len(sv.Points) == 0 {
		t.Fatalf("no frontier: %s", sv.Note)
	}
	seen := map[string]bool{}
	for i, p := range sv.Points {
		for _, c := range p.Settings {
			seen[c] = true
			if strings.ContainsAny(c, "{}[]\"") || strings.Contains(c, "null") {
				t.Errorf("row %d: cell %q is not in words", i+1, c)
			}
		}
		if p.Recommended != (i == 0 && sv.Recommendation != "") {
			t.Errorf("row %d: recommended %v", i+1, p.Recommended)
		}
		// Added as a strategy, the point is described in the same words.
		var st engine.Strategy
		if err := json.Unmarshal(p.Strategy, &st); err != nil {
			t.Fatalf("row %d: %v", i+1, err)
		}
		if want := "found by the search from every-layer: " + p.Words; st.Description != want {
			t.Errorf("row %d is described %q, want %q", i+1, st.Description, want)
		}
	}
	for c := range seen {
		switch c {
		case "exponential 200 ms → 2 s", "exponential 1 s → 10 s", "no budget", "ratio 10% over 1 s":
		default:
			t.Errorf("cell %q, want one of the knobs' values in words", c)
		}
	}
}
