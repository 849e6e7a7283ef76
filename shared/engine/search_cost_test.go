package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchEstimateBoundsBuiltins compares, on the built-ins, a default
// search's candidates' estimates (every attempt of every operation made,
// 3 events each) with what they really process on one seed: the
// estimate must never be below. It is about twice above at least, 3 to 10
// times on the metastable ones (runaway-cascade, metadata-storm; see the
// log): there nearly every attempt is made, but most take one event (an
// answer refused at once has no time-out to fire), and a budget stops
// retries the estimate counts. Neither can be known before the run, so
// the bound stays as it is.
func TestSearchEstimateBoundsBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("a sample of every built-in's default search candidates on one seed")
	}
	files, _ := filepath.Glob("../scenarios/catalog/*.json")
	if len(files) == 0 {
		t.Fatal("no built-ins")
	}
	for _, f := range files {
		slug := strings.TrimSuffix(filepath.Base(f), ".json")
		sc := builtinWithPresets(t, slug)
		if sc.Sweep != nil {
			continue
		}
		sc.Search = DefaultSearch(sc.Strategies[0].Name)
		if sc.Validate() != nil {
			continue // the default search does not fit its first strategy
		}
		sub := *sc
		sub.Search, sub.Sweep = nil, nil
		sub.Runs, sub.Seeds = 1, nil
		lo, hi := 1e18, 0.0
		for i := 0; i < combinations(sc.Search); i += 5 {
			st, err := sc.SearchCandidate(combination(sc.Search, i))
			if err != nil {
				t.Fatal(err)
			}
			sub.Strategies = []Strategy{st}
			est := estimate(&sub, false)
			res, err := Run(context.Background(), &sub, Options{NoSeries: true})
			if err != nil {
				t.Fatal(err)
			}
			r := float64(est) / float64(res.Events)
			lo, hi = min(lo, r), max(hi, r)
			if est < res.Events {
				t.Errorf("%s, combination %d (%s): estimated %d events, processed %d", slug, i, mustJSON(t, combination(sc.Search, i)), est, res.Events)
			}
		}
		t.Logf("%s: estimate / events %.2f..%.2f", slug, lo, hi)
	}
}

// builtinWithPresets returns the catalogue's scenario of slug, its
// presets expanded.
func builtinWithPresets(tb testing.TB, slug string) *Scenario {
	tb.Helper()
	var list []struct {
		Name   string          `json:"name"`
		Policy json.RawMessage `json:"policy"`
	}
	data, err := os.ReadFile("../scenarios/presets.json")
	if err == nil {
		err = json.Unmarshal(data, &list)
	}
	if err != nil {
		tb.Fatal(err)
	}
	presets := map[string]json.RawMessage{}
	for _, p := range list {
		presets[p.Name] = p.Policy
	}
	var b struct{ Scenario json.RawMessage }
	data, err = os.ReadFile("../scenarios/catalog/" + slug + ".json")
	if err == nil {
		err = json.Unmarshal(data, &b)
	}
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := ParseWith(b.Scenario, presets)
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

// TestSearchEstimateE03B: a whole search's estimate bounds its events.
func TestSearchEstimateE03B(t *testing.T) {
	sc := builtin(t, "e03b-policy-search")
	est := Estimate(sc)
	res, err := Run(context.Background(), sc, Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	total := res.Events + res.Search.Events
	if est < total {
		t.Errorf("estimated %d events, processed %d", est, total)
	}
	t.Logf("e03b-policy-search: estimated %d, processed %d (%.1f×)", est, total, float64(est)/float64(total))
}
