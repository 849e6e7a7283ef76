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

// TestEstimateSizeKeepsAFineSeriesAtItsLastSpan: a fine series at r is
// kept while its span has at most 20,000 windows of r, so a run whose
// arrivals end exactly at 20,000 × 10ms = 200s keeps its 10ms series, and
// the estimate counts it. Hand-computed for one strategy of 2 attempts on
// a dependency that drains in (4/1 + 1) × 1ms = 5ms: the span is at most
// 200s + 2 × 5ms + 5ms = 200.015s, and the size 3 × 80 metrics + 3 × 3
// peaks + 9 × 601 series buckets, plus the fine series' two numbers a
// window: 20,000 at 10ms, ⌈2000.15⌉ at 100ms, ⌈200.015⌉ at 1s.
func TestEstimateSizeKeepsAFineSeriesAtItsLastSpan(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "fine", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "200s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		"strategies": [{"name": "s", "max_attempts": 2}]}`)
	if lo, hi := estimateSpan(sc); lo != 200e9 || hi != 200.015e9 {
		t.Fatalf("span = [%v, %v], want [200s, 200.015s]", lo, hi)
	}
	want := int64(3*80 + 3*3 + 9*601 + 2*(20000+2001+201))
	if got := EstimateSize(sc); got != want {
		t.Errorf("EstimateSize = %d, want %d", got, want)
	}
}

// TestUnlimitedAttemptsFitTheirWindow: unlimited attempts are counted as
// many as fit, one step after another, in the deadline, or in max_elapsed
// when it is shorter (the deadline on a tie), else in the time to the end
// of the arrivals (1s here); a step that ends exactly at the window's end
// still counts. Without a network the steps are the backoff's waits: a
// constant 10ms fits 1 + ⌊1s / 10ms⌋ = 101 attempts in a second, a linear
// 1ns (k ns before retry k) fits 1 + 200 in 200 × 201 / 2 = 20,100ns.
func TestUnlimitedAttemptsFitTheirWindow(t *testing.T) {
	const ms = Duration(time.Millisecond)
	constant := Backoff{Kind: BackoffConstant, Base: 10 * ms}
	for _, tc := range []struct {
		name   string
		p      Policy
		n      float64
		window string
	}{
		{"a deadline", Policy{Deadline: 1000 * ms, Backoff: constant}, 101, "its deadline of 1s"},
		{"a deadline as long as max_elapsed", Policy{Deadline: 1000 * ms, MaxElapsed: 1000 * ms, Backoff: constant}, 101, "its deadline of 1s"},
		{"a shorter max_elapsed", Policy{Deadline: 2000 * ms, MaxElapsed: 1000 * ms, Backoff: constant}, 101, "its max_elapsed of 1s"},
		{"a shorter deadline", Policy{Deadline: 1000 * ms, MaxElapsed: 2000 * ms, Backoff: constant}, 101, "its deadline of 1s"},
		{"neither", Policy{Backoff: constant}, 101, "the 1s to the end of its arrivals and faults"},
		{"a last step ending at the deadline", Policy{Deadline: 20100, Backoff: Backoff{Kind: BackoffLinear, Base: 1}}, 201, "its deadline of 20.1µs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "window", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				"strategies": [{"name": "s", "max_attempts": 2}]}`)
			c := estimateAttempts(sc, &tc.p)
			if c.n != tc.n || c.window != tc.window {
				t.Errorf("attempts = %v in %q, want %v in %q", c.n, c.window, tc.n, tc.window)
			}
		})
	}
}
