package main

import (
	"strings"
	"testing"
)

// TestProbeAtRange: --at before 0 or past the scenario's duration is
// refused with the durations allowed.
func TestProbeAtRange(t *testing.T) {
	for _, at := range []string{"-5s", "45s"} {
		code, _, errs := run(t, "", "probe", "e03b-synchronized-recovery", "--at", at)
		if want := "retrylab probe: --at " + at + " must be a non-negative duration within the scenario's duration, 0s..30s\n"; code != 2 || errs != want {
			t.Errorf("--at %s: exit %d, %q; want 2, %q", at, code, errs, want)
		}
	}
	if code, _, errs := run(t, "", "probe", "e03b-synchronized-recovery", "--at", "soon"); code != 2 || !strings.Contains(errs, `--at "soon" is not a duration such as "25s"`) {
		t.Errorf("--at soon: exit %d, %q", code, errs)
	}
}

// TestProbeOverTheLimit: a probe refused for its cost says what lowers
// it, and that --max-events 0 runs it anyway.
func TestProbeOverTheLimit(t *testing.T) {
	code, _, errs := run(t, "", "probe", "runaway-cascade", "--max-events", "1000")
	for _, want := range []string{"a probe runs the strategy up to 26 times on each of 3 seeds", "probe fewer seeds (runs)",
		"retrylab probe: lower --runs, or give --max-events 0 to run it anyway (no limit)\n"} {
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("exit %d, %q; want 1 and %q", code, errs, want)
		}
	}
}
