package engine

import (
	"testing"
	"time"
)

// TestUnlimitedAttemptsWalkTheFirst65536Waits: an unlimited policy whose
// wait keeps growing (a linear backoff) has its attempts counted one wait
// at a time for the first 65,536 retries, then the rest of its deadline at
// the length of the 65,537th step. With a base of 1ns and no network the
// k-th step is k ns: the walk ends at t = 65,536 × 65,537 / 2 ns with
// 65,537 attempts, and an hour holds ⌊(3.6e12 − t) / 65,537⌋ more.
func TestUnlimitedAttemptsWalkTheFirst65536Waits(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "walk", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		"strategies": [{"name": "s", "max_attempts": 2}]}`)
	p := &Policy{Deadline: Duration(time.Hour), Backoff: Backoff{Kind: BackoffLinear, Base: 1}}
	c := estimateAttempts(sc, p)
	const walked = 65536 * 65537 / 2
	if want := 65537 + (3_600_000_000_000-walked)/65537; c.n != float64(want) {
		t.Errorf("attempts = %v, want %v", c.n, want)
	}
	if c.step != 65537 {
		t.Errorf("step = %v, want 65.537µs (the 65,537th wait)", c.step)
	}
}
