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

// TestProbeAtInsideTrigger: remedies that stay from --at on are refused
// from inside the trigger, which they would both shape and end.
func TestProbeAtInsideTrigger(t *testing.T) {
	code, _, errs := run(t, "", "probe", "e03b-synchronized-recovery", "--at", "12s", "--runs", "1")
	if want := "at 12s is inside the trigger (8.5s to 15s)"; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, %q; want 1 and ...%s...", code, errs, want)
	}
}

// TestProbeOverTheLimit: a probe refused for its cost says what lowers
// it, and that --max-events 0 runs it anyway.
func TestProbeOverTheLimit(t *testing.T) {
	code, _, errs := run(t, "", "probe", "runaway-cascade", "--max-events", "1000")
	for _, want := range []string{"a probe runs the strategy up to 27 times on each of 3 seeds", "probe fewer seeds (runs)",
		"retrylab probe: lower --runs, or give --max-events 0 to run it anyway (no limit)\n"} {
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("exit %d, %q; want 1 and %q", code, errs, want)
		}
	}
}

// TestProbeNotInAStorm: a client that never retries, against a
// dependency with 5% errors of its own, is at its own baseline after an
// outage: not in a storm, though under 99%, and offered no retry budget.
// A backlog that drains by itself is recovering, and offered no remedy.
func TestProbeNotInAStorm(t *testing.T) {
	once := `{"version": 1, "name": "errors and an outage", "seed": 1, "runs": 2,
  "workload": {"clients": 100, "arrival": "poisson", "rate": 200, "duration": "30s"},
  "dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 200,
    "error_rate": 0.05, "phases": [{"kind": "outage", "from": "5s", "to": "7s", "status": 503}]},
  "strategies": [{"name": "once", "max_attempts": 1, "attempt_timeout": "1s"}]}`
	code, out, errs := run(t, once, "probe", "-")
	for _, want := range []string{
		"healthy:          94.05%..95.28% succeed, amplification 1.000\n",
		"not in a storm: after the trigger it is at its own baseline (94.05%..95.28% success, amplification 1.000, as without the trigger; the floor is the dependency's own errors)\n",
		"budget    not tried: the strategy never retries (one attempt at every level, no hedging), so a retry budget has nothing to limit, 0 simulations\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, %q %q; want ...%s...", code, out, errs, want)
		}
	}
	if strings.Contains(out, "\nload ") || strings.Contains(out, "\ncapacity ") {
		t.Errorf("%s\nlists remedies for a strategy not in a storm", out)
	}
	// A backlog that drains without retries is slow to recover, not the
	// dependency's errors (it has none), and gets no remedy either.
	drain := `{"version": 1, "name": "a backlog", "seed": 1, "runs": 2,
  "workload": {"clients": 100, "arrival": "poisson", "rate": 350, "duration": "90s"},
  "dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 10000,
    "phases": [{"kind": "freeze", "from": "5s", "to": "15s"}]},
  "strategies": [{"name": "once", "max_attempts": 1, "attempt_timeout": "1s"}]}`
	code, out, errs = run(t, drain, "probe", "-")
	if want := "\nslow to recover but recovering: after the trigger its load on the dependency is its healthy one (amplification 1.000, healthy 1.000), so nothing sustains the bad state"; code != 0 || !strings.Contains(out, want) ||
		!strings.Contains(out, "is back by itself from ") || strings.Contains(out, "own errors") || strings.Contains(out, "\nload ") {
		t.Errorf("drain: exit %d, %q %q; want ...%s...", code, out, errs, want)
	}
}
