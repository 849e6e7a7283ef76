package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// TestRunPrintsSearchAcross: a search across variants prints, after the
// frontier, each point's metrics in every variant, its worst cases
// marked.
func TestRunPrintsSearchAcross(t *testing.T) {
	if !engine.Searches() {
		t.Skip("a build without searches")
	}
	b, _ := scenarios.Get("e03b-synchronized-recovery")
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs = 2
	sc.Search = &engine.Search{Strategy: "C",
		Knobs:      []engine.Knob{{Path: "max_attempts", Values: []json.RawMessage{json.RawMessage("2"), json.RawMessage("4")}}},
		Objectives: []engine.Objective{{Metric: "affected_success_rate", Goal: engine.GoalMax}},
		Across: []engine.Variant{{Name: "published"},
			{Name: "outage 3s", Path: "dependency.phases", Value: json.RawMessage(`[{"kind": "outage", "from": "8.5s", "to": "11.5s", "status": 503}]`)}}}
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, sc.Canonical(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "", "run", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		`across 2 variants, every candidate on each (the 8 simulations above): "published" (the scenario as written), "outage 3s" (sets dependency.phases)` + "\n",
		"\n1. max_attempts 4\n  published  ",
		`the variant that binds`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	// One line per variant under each point, one worst case marked.
	lines := strings.Split(out[strings.Index(out, "\n1. max_attempts"):], "\n")
	if !strings.HasPrefix(lines[2], "  published") || !strings.HasPrefix(lines[3], "  outage 3s") ||
		strings.Count(lines[2]+lines[3], " *") != 1 {
		t.Errorf("point 1's lines:\n%s\n%s", lines[2], lines[3])
	}
}
