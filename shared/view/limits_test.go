package view

import (
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestPlaygroundLimits: the playground runs what the command line runs by
// default, re-runs on every edit only below that, and probes within a
// server's probe budget.
func TestPlaygroundLimits(t *testing.T) {
	l := Playground(1<<53 - 1)
	if l.RunEvents != LocalMaxEvents || l.AutoRunEvents >= l.RunEvents || l.AutoRunEvents <= 0 {
		t.Errorf("run %d, auto-run %d: an edit re-runs below what Run runs", l.RunEvents, l.AutoRunEvents)
	}
	if l.ProbeEvents != 240_000_000 {
		t.Errorf("probe budget %d, want a server's default, 240 million", l.ProbeEvents)
	}
	if l.Runs != [2]int64{1, engine.MaxRuns} || l.Seed[1] != 1<<53-1 {
		t.Errorf("runs %v, seed %v", l.Runs, l.Seed)
	}
}
