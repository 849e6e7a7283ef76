package conformance

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// Envoy is a C++ proxy: it cannot run here, so its router's retry
// decisions are encoded from its source as table tests, and the engine's
// envoy-retry and envoy-retry-budget presets are run on the same scripts.
// Sources (envoyproxy/envoy):
//
//   - source/common/common/backoff_strategy.cc at 4280ef7, l. 5-11 (the
//     first interval is base_interval) and l. 13-23 (nextBackOffMs: the
//     back-off is random() % interval, whole milliseconds in [0,
//     interval); the interval then doubles while below max_interval / 2,
//     and is max_interval after that). Newer Envoy keeps the rule
//     (JitteredExponentialBackOffStrategy, doubling_limit_ = max / 2).
//   - source/common/router/retry_state_impl.cc at e78906c:
//     RetryStateImpl's constructor (base_interval 25 ms from
//     upstream.base_retry_backoff_ms, max_interval 10 × base);
//     wouldRetryFromHeaders (5xx: CodeUtility::is5xx, every code in
//     500-599; gateway-error: 502, 503, 504; retriable-4xx: 409 only);
//     wouldRetryFromReset (a reset, a connection failure included, is
//     retried under 5xx or gateway-error); shouldHedgeRetryPerTryTimeout's
//     comment (a per-try timeout is retried under 5xx or gateway-error, as
//     a stream reset); shouldRetry (retries_remaining_ from num_retries).
//   - api/envoy/config/route/v3/route_components.proto RetryPolicy:
//     num_retries defaults to 1.

// envoyIntervals returns Envoy's back-off intervals for retries 1..n
// (backoff_strategy.cc l. 13-23): the back-off of retry k is drawn from
// [0, interval k) in whole milliseconds.
func envoyIntervals(base, max int, n int) []int {
	next := base
	out := make([]int, n)
	for k := 0; k < n; k++ {
		out[k] = next
		if next < max/2 {
			next *= 2
		} else {
			next = max
		}
	}
	return out
}

// TestEnvoyBackoff: Envoy's fully jittered back-off with its defaults
// (25 ms, 250 ms) against the envoy-retry preset's full jitter over
// exponential 25 ms × 2^(n−1) capped at 250 ms. Envoy draws a whole
// number of milliseconds uniformly in [0, interval); the engine draws a
// real number in [0, interval), whose whole milliseconds (floor) are the
// same distribution. So the comparison is of the engine's waits rounded
// down to the millisecond: every one within Envoy's [0, interval − 1]
// and their mean within 3% (1,000 seeds) of Envoy's (interval − 1) / 2.
// The engine then waits the fraction of a millisecond Envoy does not
// (on average 0.5 ms more).
func TestEnvoyBackoff(t *testing.T) {
	intervals := envoyIntervals(25, 250, 6)
	if fmt.Sprint(intervals) != fmt.Sprint([]int{25, 50, 100, 200, 250, 250}) {
		t.Fatalf("Envoy's intervals from backoff_strategy.cc: %v", intervals)
	}
	p, err := Policy("envoy-retry", nil)
	if err != nil {
		t.Fatal(err)
	}
	const seeds = 1000
	sums := make([]float64, len(intervals))
	maxes := make([]int, len(intervals))
	for seed := int64(1); seed <= seeds; seed++ {
		w, err := EngineWaits(p, len(intervals), seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range w {
			ms := int(d / time.Millisecond)
			if ms < 0 || ms > intervals[i]-1 {
				t.Errorf("retry %d: the engine waits %v, outside Envoy's [0, %d] ms", i+1, d, intervals[i]-1)
			}
			if ms > maxes[i] {
				maxes[i] = ms
			}
			sums[i] += float64(ms)
		}
	}
	for i, iv := range intervals {
		want := float64(iv-1) / 2
		got := sums[i] / seeds
		if math.Abs(got-want)/want > 0.03 {
			t.Errorf("retry %d: Envoy's mean back-off %.1f ms ([0, %d) ms); the engine's, in whole ms, %.2f ms", i+1, want, iv, got)
		}
		if maxes[i] < iv*9/10 {
			t.Errorf("retry %d: the engine's longest wait %d ms, Envoy's reach %d ms", i+1, maxes[i], iv-1)
		}
		t.Logf("retry %d: Envoy [0, %d) ms mean %.1f; engine (floor) mean %.2f, max %d", i+1, iv, want, got, maxes[i])
	}
}

// TestEnvoyRetryOn: which answers Envoy's router retries, with
// num_retries 1 (2 attempts), under retry_on 5xx (the presets) and
// gateway-error and retriable-4xx (the engine's retry_on written for
// them), against the engine given the same script: the answer, then 200.
func TestEnvoyRetryOn(t *testing.T) {
	answers := []Answer{{Status: 500}, {Status: 501}, {Status: 502}, {Status: 503}, {Status: 504},
		{Status: 505}, {Status: 509}, {Status: 511}, {Status: 599}, {Status: 400}, {Status: 404},
		{Status: 408}, {Status: 409}, {Status: 429}, {Status: ConnectionError}, TimedOut}
	// retried is Envoy's decision, from wouldRetryFromHeaders,
	// wouldRetryFromReset and the per-try timeout rule.
	retried := map[string]func(a Answer) bool{
		"5xx": func(a Answer) bool {
			return a.IsTimeout() || a.Status == ConnectionError || (a.Status >= 500 && a.Status <= 599)
		},
		"gateway-error": func(a Answer) bool {
			return a.IsTimeout() || a.Status == ConnectionError || a.Status == 502 || a.Status == 503 || a.Status == 504
		},
		"retriable-4xx": func(a Answer) bool { return a.Status == 409 },
	}
	for _, c := range []struct {
		name, retryOn string
		preset        string
		override      map[string]any
	}{
		{"envoy-retry", "5xx", "envoy-retry", nil},
		{"envoy-retry-budget", "5xx", "envoy-retry-budget", map[string]any{"budget": nil}},
		{"gateway-error", "gateway-error", "envoy-retry", map[string]any{"retry_on": map[string]any{
			"statuses": []int{502, 503, 504}, "connection": true, "timeout": true}}},
		{"retriable-4xx", "retriable-4xx", "envoy-retry", map[string]any{"retry_on": map[string]any{
			"statuses": []int{409}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			over := map[string]any{"attempt_timeout": AttemptTimeout.String()}
			for k, v := range c.override {
				over[k] = v
			}
			p, err := Policy(c.preset, over)
			if err != nil {
				t.Fatal(err)
			}
			scripts := make([]CallScript, len(answers))
			want := make([]int, len(answers))
			for k, a := range answers {
				scripts[k] = CallScript{a, {Status: 200}}
				want[k] = 1
				if retried[c.retryOn](a) {
					want[k] = 2 // num_retries 1
				}
			}
			got, _, err := EngineCalls(p, scripts, Spacing)
			if err != nil {
				t.Fatal(err)
			}
			var differ []string
			for k, a := range answers {
				if got[k] != want[k] {
					differ = append(differ, fmt.Sprintf("%s: Envoy %d attempts, engine %d", answerName(a), want[k], got[k]))
				}
			}
			if len(differ) > 0 {
				t.Errorf("retry_on %s: %v", c.retryOn, differ)
			}
		})
	}
}

func answerName(a Answer) string {
	switch {
	case a.IsTimeout():
		return "per-try timeout"
	case a.Status == ConnectionError:
		return "connection failure"
	}
	return fmt.Sprint(a.Status)
}

// TestEnvoyRetryBudget: the cluster's retry_budget with its defaults
// (api/envoy/config/cluster/v3/circuit_breaker.proto: budget_percent 20%,
// min_retry_concurrency 3) on a burst of n concurrent requests whose
// first attempts all fail at the same instant, their retries then held in
// flight. Envoy (source/common/upstream/resource_manager_impl.h at
// 01c2c1f, RetryBudgetImpl::canCreate and max(): canCreate is retries in progress < max(budget_percent
// / 100 × (active + pending requests), min_retry_concurrency), the
// product truncated to an integer; retry_state_impl.cc shouldRetry takes
// the retry resource at the decision and gives it back at the request's
// next decision) decides the failures one after the other before any
// retry's back-off ends, so for the i-th failure (from 0) the active
// requests are the n − i first attempts not yet decided, the failing one
// included, or n − i − 1 if Envoy no longer counts it (the preset's
// differs entry: not settled). Both give the same count here:
//
//   - n = 20: ⌊0.2 × 20⌋ = 4 and ⌊0.2 × 19⌋ = 3, then 3 at most, so the
//     minimum of 3 decides: 3 retries, 17 refused.
//   - n = 50: with r retries granted before it, failure i is granted
//     while r < ⌊0.2 × (50 − i)⌋ (counted) or ⌊0.2 × (49 − i)⌋ (not):
//     failures 0-7 are granted either way (r = i < 8 ≤ the bound), and
//     from failure 8 on the bound is at most 8: 8 retries, 42 refused.
//
// The engine runs the envoy-retry-budget preset on the same burst: first
// attempts answered 503 after 1 s, all at once; retries, after their
// back-off (0-25 ms), answered after 10 s.
func TestEnvoyRetryBudget(t *testing.T) {
	p, err := Policy("envoy-retry-budget", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ n, granted int }{{20, 3}, {50, 8}} {
		t.Run(fmt.Sprintf("%d requests", c.n), func(t *testing.T) {
			// Library side: the rule above, both readings of "active".
			for _, counted := range []int{0, 1} {
				r := 0
				for i := 0; i < c.n; i++ {
					active := c.n - i - 1 + counted
					bound := int(0.2 * float64(active))
					if bound < 3 {
						bound = 3
					}
					if r < bound {
						r++
					}
				}
				if r != c.granted {
					t.Fatalf("Envoy's rule grants %d retries (failing request counted: %v), the table says %d", r, counted == 1, c.granted)
				}
			}
			res, err := RunScenario(mustJSON(map[string]any{
				"version": 1, "name": "conformance: Envoy retry budget", "seed": 1,
				"workload": map[string]any{"clients": c.n, "arrival": "burst"},
				"dependency": map[string]any{"workers": 1, "service_time": map[string]any{"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
					"phases": []any{
						map[string]any{"kind": "outage", "from": "0s", "to": "1s", "status": 503, "latency": "1s"},
						map[string]any{"kind": "outage", "from": "1s", "to": "1h", "status": 503, "latency": "10s"},
					}},
				"strategies": []any{withName(p, "envoy-retry-budget")},
			}))
			if err != nil {
				t.Fatal(err)
			}
			m := res.Strategies[0].Metrics
			if int(m.Retries) != c.granted || int(m.RetriesDenied) != c.n-c.granted {
				t.Errorf("Envoy grants %d of %d retries (%d refused); the engine %v (%v refused)", c.granted, c.n, c.n-c.granted, m.Retries, m.RetriesDenied)
			}
		})
	}
}
