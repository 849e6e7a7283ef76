package probe

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestSearchOverLayersEndsTheStorm (#28): the default search of
// failover-incident's every-layer, metastable as it is
// (TestProbeFailoverMetastable), recommends a policy that the probe finds
// out of the storm: put in every-layer's place, the recommendation is not
// metastable.
func TestSearchOverLayersEndsTheStorm(t *testing.T) {
	sc := builtinWithPresets(t, "failover-incident")
	sc.Search = engine.DefaultSearchFor(sc, "every-layer")
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Search.Recommendation
	if rec == nil {
		t.Fatalf("no recommendation: %s", res.Search.Note)
	}
	st, err := sc.SearchCandidate(rec.Settings)
	if err != nil {
		t.Fatal(err)
	}
	probed := builtinWithPresets(t, "failover-incident")
	i := slices.IndexFunc(probed.Strategies, func(s engine.Strategy) bool { return s.Name == "every-layer" })
	probed.Strategies[i] = st
	p := mustProbe(t, probed, Options{Strategy: "every-layer"})
	if p.Finding == FindingMetastable {
		t.Errorf("the recommendation (%s) is still metastable: %s", rec.Reason, p.Summary)
	}
}

// builtinWithPresets returns the catalogue's scenario of slug, its
// presets expanded.
func builtinWithPresets(tb testing.TB, slug string) *engine.Scenario {
	tb.Helper()
	var list []struct {
		Name   string          `json:"name"`
		Policy json.RawMessage `json:"policy"`
	}
	data, err := os.ReadFile("../../scenarios/presets.json")
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
	data, err = os.ReadFile("../../scenarios/catalog/" + slug + ".json")
	if err == nil {
		err = json.Unmarshal(data, &b)
	}
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := engine.ParseWith(b.Scenario, presets)
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}
