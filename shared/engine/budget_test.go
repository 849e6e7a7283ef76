package engine

import (
	"context"
	"strings"
	"testing"
)

// budgetRun runs one strategy with the given budget JSON on calls from one
// client, evenly spaced 1 s apart, against a dependency answering every
// call status at once, and returns its metrics.
func budgetRun(t *testing.T, calls int, status, policy string) Metrics {
	t.Helper()
	sc := strings.NewReplacer("CALLS", itoa(calls), "STATUS", status, "POLICY", policy).Replace(`{"version": 1, "name": "budget",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": CALLS},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
			"phases": [{"kind": "outage", "from": "0s", "to": "20h", "status": STATUS}]},
		"strategies": [{"name": "s", POLICY}]}`)
	return mustRun(t, sc).Strategies[0].Metrics
}

func TestTokenBucketChargeOnRetry(t *testing.T) {
	// The AWS SDK's quota (aws-sdk-go-v2 v1.48, standard.go and
	// middleware.go): 500 tokens, a retry costs 14 when it is made, after
	// the max-attempts check, and needs just its cost available. 28 per
	// call of 3 attempts: 17 calls (476), then one retry (490), then none.
	const pol = `"max_attempts": 3, "budget": {"kind": "token_bucket", "max_tokens": 500, "failure_cost": 14, "token_ratio": 1, "charge": "retry", "refund": true}`
	m := budgetRun(t, 40, "503", pol)
	if m.Attempts != 17*3+2+22 || m.RetriesDenied != 1+22 {
		t.Errorf("always failing: %v attempts, %v denied; want %d and %d", m.Attempts, m.RetriesDenied, 17*3+2+22, 23)
	}
	// Charging every retryable failure (the default, gRPC's) takes 3 × 14
	// per call, the last failure's included, and needs more than
	// max_tokens/2 left: far fewer attempts.
	def := budgetRun(t, 40, "503", `"max_attempts": 3, "budget": {"kind": "token_bucket", "max_tokens": 500, "failure_cost": 14, "token_ratio": 1}`)
	if def.Attempts >= m.Attempts {
		t.Errorf("charging every failure made %v attempts, charging retries %v: want fewer", def.Attempts, m.Attempts)
	}
	// A throttling answer costs throttle_cost: 500 / 5 = 100 retries.
	th := budgetRun(t, 120, "429", strings.Replace(pol, `"refund": true`, `"refund": true, "throttle_cost": 5`, 1))
	if th.Retries != 100 {
		t.Errorf("429 at cost 5: %v retries, want 100", th.Retries)
	}
	// timeout_cost applies to timeouts only, not to a 503.
	to := budgetRun(t, 120, "503", strings.Replace(pol, `"refund": true`, `"refund": true, "timeout_cost": 50`, 1))
	if to.Retries != 35 {
		t.Errorf("503 with a timeout cost: %v retries, want 35 (500 / 14)", to.Retries)
	}
}

func TestTokenBucketRefund(t *testing.T) {
	// Fail once, then succeed: with refund the retry's cost comes back and
	// the bucket never runs dry; without it, each call costs 14 − 1.
	tmpl := `{"version": 1, "name": "refund",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 0.1, "operations": 100},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1, "error_rate": 0,
			"phases": PHASES},
		"strategies": [
			{"name": "refund", "max_attempts": 3, "backoff": {"kind": "constant", "base": "1ms"}, "budget": {"kind": "token_bucket", "max_tokens": 500, "failure_cost": 14, "token_ratio": 1, "charge": "retry", "refund": true}},
			{"name": "no-refund", "max_attempts": 3, "backoff": {"kind": "constant", "base": "1ms"}, "budget": {"kind": "token_bucket", "max_tokens": 500, "failure_cost": 14, "token_ratio": 1, "charge": "retry"}}
		]}`
	var phases []string
	for k := range 100 {
		phases = append(phases, `{"kind": "outage", "from": "`+itoa(k*10)+`s", "to": "`+itoa(k*10)+`s1ns", "status": 503}`)
	}
	sc := strings.Replace(tmpl, "PHASES", "["+strings.Join(phases, ",")+"]", 1)
	sc = strings.ReplaceAll(sc, `s1ns"`, `.000000001s"`)
	res := mustRun(t, sc)
	r, n := res.Strategies[0].Metrics, res.Strategies[1].Metrics
	if r.Attempts != 200 || r.RetriesDenied != 0 {
		t.Errorf("with refund: %v attempts, %v denied; want 200 and 0", r.Attempts, r.RetriesDenied)
	}
	// Without refund: 500 − 13k ≥ 14 for k ≤ 37: 38 retries.
	if n.Retries != 38 {
		t.Errorf("without refund: %v retries, want 38", n.Retries)
	}
}

func TestThrottleBase(t *testing.T) {
	// After a 429 the wait grows from throttle_base: 1 s, 2 s.
	pol := `"max_attempts": 3, "backoff": {"kind": "exponential", "base": "50ms", "max": "20s", "throttle_base": "1s"}`
	if m := budgetRun(t, 1, "429", pol); m.LatencyMaxms != 3000 {
		t.Errorf("after 429: the call took %v ms, want 3000", m.LatencyMaxms)
	}
	if m := budgetRun(t, 1, "503", pol); m.LatencyMaxms != 150 {
		t.Errorf("after 503: the call took %v ms, want 150", m.LatencyMaxms)
	}
}

func TestConcurrencyBudget(t *testing.T) {
	// 20 calls start together, each first attempt answered 503 after 1 s;
	// the retries are answered only after 10 s, so they stay in progress.
	// failsafe-go's rule (budget.go): permits 1-3 under min_concurrency,
	// then 3/23, 4/24 and 5/25 are not above 0.2, 6/26 is: 6 retries.
	res := mustRun(t, `{"version": 1, "name": "concurrency",
		"workload": {"clients": 20, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
			"phases": [{"kind": "outage", "from": "0s", "to": "1s", "status": 503, "latency": "1s"},
				{"kind": "outage", "from": "1s", "to": "1h", "status": 503, "latency": "10s"}]},
		"strategies": [
			{"name": "budget", "max_attempts": 2, "budget": {"kind": "concurrency", "ratio": 0.2, "min_concurrency": 3}},
			{"name": "min-only", "max_attempts": 2, "budget": {"kind": "concurrency", "min_concurrency": 2}}
		]}`)
	b, mo := res.Strategies[0].Metrics, res.Strategies[1].Metrics
	if b.Retries != 6 || b.RetriesDenied != 14 {
		t.Errorf("budget: %v retries, %v denied; want 6 and 14", b.Retries, b.RetriesDenied)
	}
	if mo.Retries != 2 || mo.RetriesDenied != 18 {
		t.Errorf("min-only: %v retries, %v denied; want 2 and 18", mo.Retries, mo.RetriesDenied)
	}
	// Sequential calls never have a retry in progress when another asks.
	if m := budgetRun(t, 30, "503", `"max_attempts": 3, "budget": {"kind": "concurrency", "ratio": 0.2, "min_concurrency": 1}`); m.RetriesDenied != 0 || m.Retries != 60 {
		t.Errorf("sequential calls: %v retries, %v denied; want 60 and 0", m.Retries, m.RetriesDenied)
	}
}

func TestRatioBudgetSlices(t *testing.T) {
	// Calls 1 s apart, every attempt failing, one retry each: ratio 0.5
	// over 4 s. Exactly sliding, the window [t−4 s, t] grants the retries
	// at 1, 3, 6 and 8 s (retries + 1 ≤ 0.5 × first attempts). In 4 slices
	// of 1 s (Finagle's leaky bucket: 1000 per first attempt, 2000 per
	// retry, the current slice and the 3 before it), at 1, 3, 5, 7 and 9 s:
	// at 5 s the deposit of 1 s has expired with its slice but the
	// withdrawal of 1 s has too.
	exact := budgetRun(t, 10, "503", `"max_attempts": 2, "budget": {"kind": "ratio", "ratio": 0.5, "window": "4s"}`)
	sliced := budgetRun(t, 10, "503", `"max_attempts": 2, "budget": {"kind": "ratio", "ratio": 0.5, "window": "4s", "slices": 4}`)
	if exact.Retries != 4 || sliced.Retries != 5 {
		t.Errorf("retries: exact window %v, sliced %v; want 4 and 5", exact.Retries, sliced.Retries)
	}
	// The reserve: min_per_second 1 over 4 s is 4 retries' worth.
	res := budgetRun(t, 10, "503", `"max_attempts": 2, "budget": {"kind": "ratio", "ratio": 0.5, "window": "4s", "slices": 4, "min_per_second": 1}`)
	if res.Retries <= sliced.Retries {
		t.Errorf("a reserve granted %v retries, none %v: want more", res.Retries, sliced.Retries)
	}
}

func TestWindowedAdder(t *testing.T) {
	// twitter/util's WindowedAdder with 10 slices of 1 s: what was added
	// in [0, 1 s) still counts at 9.5 s, and no longer at 10.5 s.
	const s = int64(1e9)
	for _, c := range []struct {
		at   int64
		want int64
	}{{9*s + s/2, 10}, {10*s + s/2, 0}} {
		a := windowedAdder{window: s, buf: make([]int64, 9)}
		for k := range int64(10) {
			a.add(k*s/10, 1)
		}
		if got := a.sum(c.at); got != c.want {
			t.Errorf("sum at %v ns: %d, want %d", c.at, got, c.want)
		}
	}
}

func TestConcurrencyBudgetShareOfAttempts(t *testing.T) {
	// Envoy's rule (resource_manager_impl.h, RetryBudgetImpl): a retry
	// while retries in progress < max(⌊0.2 × attempts in flight⌋, 3). N
	// calls start together and their first attempts fail at 1 s one after
	// the other; the k-th failure sees N−1−k first attempts still in
	// flight (the retries granted leave after the answers of that instant).
	// N = 100: granted while k < ⌊0.2 × (99 − k)⌋, k = 0..15: 16 retries.
	// N = 20: only the minimum, 3.
	for _, c := range []struct{ n, retries int }{{100, 16}, {20, 3}} {
		res := mustRun(t, strings.Replace(`{"version": 1, "name": "envoy",
			"workload": {"clients": N, "arrival": "burst"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
				"phases": [{"kind": "outage", "from": "0s", "to": "1s", "status": 503, "latency": "1s"},
					{"kind": "outage", "from": "1s", "to": "1h", "status": 503, "latency": "10s"}]},
			"strategies": [{"name": "envoy", "max_attempts": 2, "budget": {"kind": "concurrency", "ratio": 0.2, "min_concurrency": 3, "share_of": "attempts"}}]}`, "N", itoa(c.n), 1))
		m := res.Strategies[0].Metrics
		if int(m.Retries) != c.retries || int(m.RetriesDenied) != c.n-c.retries {
			t.Errorf("%d calls: %v retries, %v denied; want %d and %d", c.n, m.Retries, m.RetriesDenied, c.retries, c.n-c.retries)
		}
	}
}

// TestRatioBudgetSinceStartKeepsNoTimes: a ratio budget over the whole
// run counts its retries and first attempts, and keeps no time of
// either: the times are a window's, and without one a long run's
// memory would grow with every retry. 20 operations failing at once,
// 3 attempts each, against a ratio of 0.5: 10 retries granted.
func TestRatioBudgetSinceStartKeepsNoTimes(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "budget",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 20},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
			"phases": [{"kind": "outage", "from": "0s", "to": "20h", "status": 503}]},
		"strategies": [{"name": "s", "max_attempts": 3, "budget": {"kind": "ratio", "ratio": 0.5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compile(sc)
	s := newSim(context.Background(), m, &m.strategies[0], m.seeds[0], 0)
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	in := &s.inst[0][0]
	if in.retries != 10 || in.requests != 20 {
		t.Errorf("%d retries of %d first attempts counted, want 10 of 20", in.retries, in.requests)
	}
	if in.reqTimes.size != 0 || in.retryTimes.size != 0 {
		t.Errorf("without a window the budget keeps %d first attempts' and %d retries' times, want none", in.reqTimes.size, in.retryTimes.size)
	}
}
