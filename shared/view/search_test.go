//go:build !nosearch

package view

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/internal/golden"
)

// searched runs testdata/search.json (E03-B with a search from C of 18
// candidates, two objectives and a constraint), after edit changes its
// search.
func searched(t *testing.T, edit func(*engine.Search)) (*engine.Scenario, *engine.Result) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "search.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(sc.Search)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sc, res
}

func TestSearchView(t *testing.T) {
	sc, res := searched(t, nil)
	v := Of(sc, res, Options{})
	sv := v.Search
	if sv == nil {
		t.Fatal("no search in the view")
	}
	got, err := json.MarshalIndent(sv, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "search-view.json"), append(got, '\n'))

	if len(sv.Points) != len(res.Search.Frontier) || len(sv.Points) == 0 {
		t.Fatalf("%d rows for %d frontier points", len(sv.Points), len(res.Search.Frontier))
	}
	checkGroups(t, sv.Points, sv.Groups)
	for _, want := range []string{"Search from C: 18 candidates by successive halving (18 on 1 seed, 9 on 2 seeds, 8 on 3 seeds)", "Objectives: highest success rate in the affected window, then lowest peak calls in 100 ms.", "Constraints: peak calls in 100 ms ≤ 70 calls;"} {
		if !strings.Contains(sv.Summary, want) {
			t.Errorf("summary %q\nlacks %q", sv.Summary, want)
		}
	}
	// The recommendation, in words, is the first row's, and that row is
	// marked.
	if !strings.HasPrefix(sv.Recommendation, "3 attempts, jitter decorrelated, no budget gives ") || sv.Points[0].Settings[0] != "3" || !sv.Points[0].Recommended {
		t.Errorf("the recommendation %q is not the first row's %v, or its row is not marked", sv.Recommendation, sv.Points[0].Settings)
	}
	for i, p := range sv.Points[1:] {
		if p.Recommended {
			t.Errorf("row %d is marked recommended too", i+2)
		}
	}
	// Columns: the knobs, then the objectives' metrics (the constraint's is
	// one of them).
	if strings.Join(sv.Settings, ",") != "max_attempts,jitter.kind,budget" || len(sv.Metrics) != 2 || sv.Metrics[1].Key != "peak_per_100ms" {
		t.Errorf("columns %v and %v", sv.Settings, sv.Metrics)
	}
	if sv.Points[0].Settings[2] != "no budget" || sv.Points[2].Settings[1] != "decorrelated" {
		t.Errorf("settings %q and %q: want null as no budget, strings without quotes", sv.Points[0].Settings, sv.Points[2].Settings)
	}
	if sv.Figure == nil || sv.Figure.Query != "picture=frontier" || sv.Figure.Options.Search != sc.Search {
		t.Errorf("figure %+v", sv.Figure)
	}
	// Each row's strategy is the candidate: added to the scenario, it is
	// valid and gets the point's metrics (a candidate runs alone as it ran
	// in the search, on the same seeds).
	for i, p := range sv.Points {
		var doc map[string]any
		if err := json.Unmarshal(p.Strategy, &doc); err != nil {
			t.Fatalf("row %d: %v", i+1, err)
		}
		if doc["name"] != p.Name || !strings.HasPrefix(p.Name, "C (search ") {
			t.Errorf("row %d: named %v, want %q", i+1, doc["name"], p.Name)
		}
		if got := doc["max_attempts"]; got != json.Number(p.Settings[0]) && got != mustFloat(p.Settings[0]) {
			t.Errorf("row %d: max_attempts %v, want %s", i+1, got, p.Settings[0])
		}
	}
	rec := sv.Points[0]
	var st engine.Strategy
	if err := json.Unmarshal(rec.Strategy, &st); err != nil {
		t.Fatal(err)
	}
	alone := *sc
	alone.Search = nil
	alone.Strategies = []engine.Strategy{st}
	out, err := engine.Run(context.Background(), &alone, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.Strategies[0].Metrics.AffectedSuccessRate, res.Search.Recommendation.Metrics.AffectedSuccessRate; got != want {
		t.Errorf("the recommended candidate run as a strategy: affected success %v, the search's %v", got, want)
	}

	// Draw draws the frontier.
	Draw(v, res, "light", 0)
	if !strings.Contains(sv.Figure.SVG, ">recommended<") {
		t.Error("Draw left the frontier undrawn")
	}
}

func mustFloat(s string) any {
	var f float64
	_ = json.Unmarshal([]byte(s), &f)
	return f
}

func TestSearchViewNoneMeets(t *testing.T) {
	sc, res := searched(t, func(s *engine.Search) {
		s.Constraints = []engine.Constraint{{Metric: "peak_per_100ms", Op: engine.OpAtMost, Value: 1}}
	})
	sv := Of(sc, res, Options{}).Search
	if sv == nil || len(sv.Points) != 0 || sv.Recommendation != "" || sv.Figure != nil {
		t.Fatalf("view %+v: want no points, no recommendation, no figure", sv)
	}
	if sv.Note == "" || sv.Note != res.Search.Note || !strings.Contains(sv.Summary, "0 of the last round's 8 candidates meet them") {
		t.Errorf("note %q, summary %q", sv.Note, sv.Summary)
	}
}

func TestNoSearchNoSearchView(t *testing.T) {
	sc, res := several(t)
	v := Of(sc, res, Options{})
	if v.Search != nil {
		t.Error("a scenario without a search has a search view")
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), `"search"`) {
		t.Error(`the view's JSON has "search" without a search`)
	}
}
