package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestGoldenLatenciesExact fails when a run of a built-in or test scenario
// (those whose results are golden files) makes more operations than
// latencies keep exactly: its percentiles would then come from the
// histogram, and its golden would change.
func TestGoldenLatenciesExact(t *testing.T) {
	inputs := map[string][]byte{}
	for _, b := range scenarios.All() {
		inputs[b.Slug] = b.Scenario
	}
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios in testdata: %v", err)
	}
	for _, f := range append(files, "../chart/testdata/several-scenario.json") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data
	}
	for name, data := range inputs {
		sc, err := scenarios.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		strats := res.Strategies
		for _, p := range res.Sweep {
			strats = append(strats, p.Strategies...)
		}
		for _, s := range strats {
			ops := s.Metrics.Operations
			if mm, ok := s.Spread["operations"]; ok {
				ops = mm.Max
			}
			if ops > engine.ExactLatencies {
				t.Errorf("%s, %s: %v operations in a run, more than the %d latencies kept exactly", name, s.Name, ops, engine.ExactLatencies)
			}
		}
	}
}
