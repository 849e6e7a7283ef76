package engine

import "testing"

// TestBreakerTimeWindowCountsSlowCalls: a breaker over a time window (not
// a count of calls) counts slow successes toward its slow-call ratio. The
// service takes 2 s from 5 s on; the calls at 5 s and 6 s end at 7 s and
// 8 s, both slow, and at 8 s they are the whole 2 s window (6 s, 8 s].
func TestBreakerTimeWindowCountsSlowCalls(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "slow-window",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 10},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "500ms"}, "queue_capacity": 1,
			"phases": [{"kind": "latency", "from": "5s", "to": "1h", "factor": 4}]},
		"strategies": [
			{"name": "slow", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 1, "window": "2s", "min_throughput": 2, "slow_call": "1s", "slow_ratio": 1, "break": "1h"}},
			{"name": "plain", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 1, "window": "2s", "min_throughput": 2, "break": "1h"}}
		]}`)
	if got := transitionsOf(strategy(t, res, "slow")); got != "8.0 open" {
		t.Errorf("slow calls in a time window: %s; want 8.0 open", got)
	}
	if got := transitionsOf(strategy(t, res, "plain")); got != "" {
		t.Errorf("without slow calls: %s; want none", got)
	}
}
