package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestEventLimitStopsOnlyPastIt: a run is stopped once it has processed
// more events than its limit, never at the limit itself. 8192 operations,
// each one attempt served at once, are 16,384 events (an arrival and a
// service's end each): under a limit of 16,384 the run completes; under
// 16,383 it is stopped with a CostError.
func TestEventLimitStopsOnlyPastIt(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "events",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1000, "operations": 8192},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "100us"}, "queue_capacity": 1},
		"strategies": [{"name": "s", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compile(sc)
	for _, c := range []struct {
		limit   int64
		stopped bool
	}{{0, false}, {16384, false}, {16383, true}} {
		s := newSim(context.Background(), m, &m.strategies[0], m.seeds[0], c.limit)
		err := s.run()
		var ce *CostError
		if stopped := errors.As(err, &ce); stopped != c.stopped {
			t.Errorf("limit %d: err %v after %d events; want stopped %t", c.limit, err, s.events, c.stopped)
		}
		if c.limit == 0 && s.events != 16384 {
			t.Fatalf("%d events without a limit, want 16384: the edges above are off", s.events)
		}
	}
}

// TestRetryFitsExactlyBeforeTheDeadline: a retry is made when its wait
// and min_attempt_time end no later than the deadline, and not when they
// end after it. The one operation's first attempt fails at once (an
// error_rate failure takes no time); the retry would wait 100 ms (no
// jitter): with a deadline of 1 s a minimum attempt of 900 ms fits
// exactly, and 901 ms does not.
func TestRetryFitsExactlyBeforeTheDeadline(t *testing.T) {
	for _, c := range []struct {
		minAttempt string
		attempts   float64
	}{{"900ms", 2}, {"901ms", 1}} {
		res := mustRun(t, fmt.Sprintf(`{"version": 1, "name": "fit",
			"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 1},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "100ms"}, "queue_capacity": 1, "error_rate": 1},
			"strategies": [{"name": "s", "max_attempts": 2, "deadline": "1s", "min_attempt_time": %q,
				"backoff": {"kind": "constant", "base": "100ms"}, "jitter": {"kind": "none"}}]}`, c.minAttempt))
		m := strategy(t, res, "s").Metrics
		if m.Attempts != c.attempts {
			t.Errorf("min_attempt_time %s: %v attempts, want %v", c.minAttempt, m.Attempts, c.attempts)
		}
		if c.attempts == 1 && m.GaveUpDeadline != 1 {
			t.Errorf("min_attempt_time %s: %v operations given up by the deadline, want 1", c.minAttempt, m.GaveUpDeadline)
		}
	}
}

// TestFallbackOperationsAreRecycled: an operation that ended on a
// fallback's answer gives its slot back once that answer is in, so that a
// long run of one operation at a time keeps a handful of slots. 100
// operations, 10 ms apart, each failing at once and answered by a
// fallback 1 ms later: never two open at once.
func TestFallbackOperationsAreRecycled(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "fallbacks",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 100, "operations": 100,
			"plan": [{"calls": [{"dependency": "a"}]}]},
		"dependencies": [{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1, "error_rate": 1}],
		"strategies": [{"name": "s", "max_attempts": 1, "fallbacks": [{"call": "a", "latency": "1ms"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	fellBack := 0
	s := simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what == "end" && s.ops[id].flags&opDegraded != 0 {
			fellBack++
		}
	})
	if fellBack != 100 {
		t.Fatalf("%d operations ended on the fallback, want 100", fellBack)
	}
	if n := len(s.ops); n > 4 {
		t.Errorf("%d operation slots for operations one at a time, want a few: the ended ones are not reused", n)
	}
}

// TestBreakerCountsACallSlowOnlyPastSlowCall: a call is slow when it
// takes longer than slow_call, not as long. Service takes 500 ms, 2 s
// from 5 s on; a window of 4 calls that are all slow opens the breaker
// at 10 s (the calls started at 5 to 8 s end at 7 to 10 s). With
// slow_call 2s those calls take exactly slow_call and none is slow.
func TestBreakerCountsACallSlowOnlyPastSlowCall(t *testing.T) {
	for _, tc := range []struct {
		slowCall string
		want     string
	}{
		{"1.999s", "10.0 open"},
		{"2s", ""},
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
