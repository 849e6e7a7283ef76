package engine

import (
	"fmt"
	"testing"
	"time"
)

// TestStatusRangesSpanTheHTTPCodes: a retry_on status range is read from
// 100 to 599, both ends allowed, and no further.
func TestStatusRangesSpanTheHTTPCodes(t *testing.T) {
	for _, tc := range []struct {
		r      string
		lo, hi int
		ok     bool
	}{
		{"100-199", 100, 199, true},
		{"99-199", 0, 0, false},
		{"500-599", 500, 599, true},
		{"500-600", 0, 0, false},
		{"429-429", 429, 429, true},
		{"503-500", 0, 0, false},
		{"500", 0, 0, false},
	} {
		lo, hi, ok := parseStatusRange(tc.r)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("parseStatusRange(%q) = %d, %d, %v; want %d, %d, %v", tc.r, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}

// TestUncappedExponentialWaitReachesTheClamp: an exponential backoff
// without a max doubles its wait until the clamp of 4 × MaxSpan (96 h),
// however many retries come before.
func TestUncappedExponentialWaitReachesTheClamp(t *testing.T) {
	w := compileWait(&Policy{Backoff: Backoff{Kind: BackoffExponential, Base: Duration(time.Second), Multiplier: 2}})
	for _, tc := range []struct {
		n    int64
		want time.Duration
	}{
		{1, time.Second},
		{16, 1 << 15 * time.Second},           // 9.1 h
		{19, 1 << 18 * time.Second},           // 72.8 h
		{20, time.Duration(MaxSpan) * 4},      // 2^19 s is past 96 h
		{1000, time.Duration(MaxSpan) * 4},    // as many retries as an unlimited policy makes
		{1 << 40, time.Duration(MaxSpan) * 4}, // and more
	} {
		if got := time.Duration(w.wait(tc.n, 0, 1)); got != tc.want {
			t.Errorf("wait before retry %d = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestBreakerSlowCallsWithoutRatioOpenWhenAllAreSlow: a breaker given
// slow_call and no slow_ratio opens once every call of its window is
// slow (slow_ratio 1), not on fast calls nor on some slow ones. Service
// takes 500 ms, 2 s from 5 s on: the calls started at 5, 6, 7 and 8 s, the
// first four of the window of 4 all slow, end at 7, 8, 9 and 10 s.
func TestBreakerSlowCallsWithoutRatioOpenWhenAllAreSlow(t *testing.T) {
	for _, tc := range []struct {
		slowCall string
		want     string
	}{
		{"1s", "10.0 open"},
		{"3s", ""}, // no call is slow
	} {
		res := mustRun(t, fmt.Sprintf(`{"version": 1, "name": "slow",
			"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 10},
			"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "500ms"}, "queue_capacity": 1,
				"phases": [{"kind": "latency", "from": "5s", "to": "1h", "factor": 4}]},
			"strategies": [{"name": "s", "max_attempts": 1,
				"breaker": {"kind": "ratio", "ratio": 1, "window_calls": 4, "min_throughput": 4, "slow_call": %q, "break": "1h"}}]}`, tc.slowCall))
		if got := transitionsOf(strategy(t, res, "s")); got != tc.want {
			t.Errorf("slow_call %s: transitions %q, want %q", tc.slowCall, got, tc.want)
		}
	}
}
