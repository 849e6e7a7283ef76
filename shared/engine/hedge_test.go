package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Hedging: each test shows one rule of the package documentation's
// "Hedging" at work, on scenarios small enough to reason about.

// longTail is a healthy dependency with lognormal service times (p50 10 ms,
// p99 200 ms, so p95 ≈ 83 ms) and workers enough that nothing queues.
const longTail = `{"workers": 400, "service_time": {"kind": "lognormal", "p50": "10ms", "p99": "200ms"}, "queue_capacity": 1000}`

func TestHedgingCutsTheTail(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "tail", "seed": 3,
		"workload": {"clients": 50, "arrival": "poisson", "rate": 500, "duration": "20s"},
		"dependency": `+longTail+`,
		"strategies": [
			{"name": "none", "max_attempts": 1},
			{"name": "hedge-p95", "max_attempts": 2, "hedging": {"delay": "83ms"}}
		]}`)
	none, hedged := strategy(t, res, "none").Metrics, strategy(t, res, "hedge-p95").Metrics
	if hedged.LatencyP99ms > 0.6*none.LatencyP99ms {
		t.Errorf("latency p99 %v ms with hedging at p95, %v ms without: want a clear cut (≤ 60%%)", hedged.LatencyP99ms, none.LatencyP99ms)
	}
	if hedged.LatencyP50ms != none.LatencyP50ms {
		t.Errorf("latency p50 %v ms with hedging, %v ms without: the median call never hedges", hedged.LatencyP50ms, none.LatencyP50ms)
	}
	// About 5% of calls are slower than the delay: that many extra calls.
	extra := hedged.DependencyCalls/none.DependencyCalls - 1
	if extra < 0.035 || extra > 0.065 {
		t.Errorf("hedging at p95 added %.1f%% dependency calls, want about 5%%", 100*extra)
	}
	if hedged.Hedges != hedged.DependencyCalls-hedged.Operations || hedged.Succeeded != hedged.Operations {
		t.Errorf("hedges %v, dependency calls %v, operations %v, succeeded %v: want hedges = calls − operations and no failure",
			hedged.Hedges, hedged.DependencyCalls, hedged.Operations, hedged.Succeeded)
	}
	if hedged.HedgesWon == 0 || hedged.HedgesWon > hedged.Hedges {
		t.Errorf("%v hedges won of %v", hedged.HedgesWon, hedged.Hedges)
	}
}

func TestHedgingInALayer(t *testing.T) {
	// The layer hedges, the client does not: the client makes one attempt
	// per operation, the layer's copies reach the dependency, and the
	// series and retry peaks count them as retries all the same.
	res := mustRun(t, `{"version": 1, "name": "layer", "seed": 3,
		"workload": {"clients": 50, "arrival": "poisson", "rate": 500, "duration": "10s"},
		"dependency": `+longTail+`,
		"strategies": [
			{"name": "none", "max_attempts": 1, "layers": [{"max_attempts": 1}]},
			{"name": "layer", "max_attempts": 1, "layers": [{"max_attempts": 2, "hedging": {"delay": "83ms"}}]}]}`)
	none, layer := strategy(t, res, "none"), strategy(t, res, "layer")
	m := layer.Metrics
	if m.Attempts != m.Operations || m.Retries != 0 || m.Hedges == 0 || m.RetryPeakPer1s == 0 {
		t.Errorf("client attempts %v for %v operations, retries %v, hedges %v, retry peak %v", m.Attempts, m.Operations, m.Retries, m.Hedges, m.RetryPeakPer1s)
	}
	if la := layer.LayerAttempts; len(la) != 2 || la[1] != m.Operations+m.Hedges || m.DependencyCalls != la[1] {
		t.Errorf("layer attempts %v, dependency calls %v, want the layer's %v operations + %v hedges", la, m.DependencyCalls, m.Operations, m.Hedges)
	}
	if m.LatencyP99ms > 0.6*none.Metrics.LatencyP99ms {
		t.Errorf("latency p99 %v ms with the layer hedging, %v ms without", m.LatencyP99ms, none.Metrics.LatencyP99ms)
	}
}

func TestHedgesCountedExactly(t *testing.T) {
	// No failure, no timeout: every copy after the first is a hedge, a
	// retry and an attempt, reaches the dependency, and all but the winner
	// are served for nobody (wasted work).
	res := mustRun(t, `{"version": 1, "name": "count", "seed": 5,
		"workload": {"clients": 20, "arrival": "poisson", "rate": 200, "duration": "10s"},
		"dependency": `+longTail+`,
		"strategies": [{"name": "h", "max_attempts": 3, "hedging": {"delay": "15ms"}}]}`)
	m := res.Strategies[0].Metrics
	if m.Hedges == 0 || m.Hedges != m.DependencyCalls-m.Operations {
		t.Errorf("hedges %v, dependency calls %v, operations %v: want hedges = calls − operations > 0", m.Hedges, m.DependencyCalls, m.Operations)
	}
	if m.Retries != m.Hedges || m.Attempts != m.DependencyCalls || m.FirstAttempts != m.Operations {
		t.Errorf("retries %v, attempts %v, first attempts %v for %v hedges, %v calls, %v operations",
			m.Retries, m.Attempts, m.FirstAttempts, m.Hedges, m.DependencyCalls, m.Operations)
	}
	if m.WastedWork != m.Hedges {
		t.Errorf("wasted work %v, want one per losing copy: %v", m.WastedWork, m.Hedges)
	}
	if m.Succeeded != m.Operations || m.HedgesWon == 0 || m.HedgesWon > m.Hedges {
		t.Errorf("%v of %v succeeded, %v hedges won of %v", m.Succeeded, m.Operations, m.HedgesWon, m.Hedges)
	}
	if m.RetryPeakPer1s == 0 {
		t.Errorf("hedges are not counted in the retry peaks")
	}
	series := res.Strategies[0].Series
	var retries int32
	for _, v := range series.Retries {
		retries += v
	}
	if float64(retries) != m.Hedges {
		t.Errorf("the series count %v retries, want the %v hedges", retries, m.Hedges)
	}
}

// one runs a single operation at t = 0 against dep with the strategy
// policy (a JSON object's fields) and returns its metrics.
func one(t *testing.T, dep, policy string) Metrics {
	t.Helper()
	res := mustRun(t, `{"version": 1, "name": "one",
		"workload": {"clients": 1, "arrival": "burst", "burst_at": "0s"},
		"dependency": `+dep+`,
		"strategies": [{"name": "s", `+policy+`}]}`)
	return res.Strategies[0].Metrics
}

func TestHedgingFirstSuccessWins(t *testing.T) {
	// The first copy starts during a latency phase (service 10 × 10 ms);
	// the hedge, 20 ms later, takes 10 ms and wins at 30 ms. The first
	// copy is served at 100 ms for nobody.
	m := one(t, `{"workers": 4, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 10,
		"phases": [{"kind": "latency", "from": "0s", "to": "5ms", "factor": 10}]}`,
		`"max_attempts": 3, "hedging": {"delay": "20ms"}`)
	if m.Succeeded != 1 || m.LatencyMaxms != 30 {
		t.Errorf("succeeded %v after %v ms, want 1 after 30 ms", m.Succeeded, m.LatencyMaxms)
	}
	if m.Hedges != 1 || m.HedgesWon != 1 || m.DependencyCalls != 2 || m.WastedWork != 1 {
		t.Errorf("hedges %v, won %v, dependency calls %v, wasted %v; want 1, 1, 2, 1", m.Hedges, m.HedgesWon, m.DependencyCalls, m.WastedWork)
	}
	if m.SettleS != 0.03 {
		t.Errorf("settled at %v s, want 0.03: the losing copy does not hold the operation", m.SettleS)
	}
}

func TestHedgingNonRetryableFailureEndsTheCall(t *testing.T) {
	// Every call fails with 500 (not in retry_on) after 50 ms; copies leave
	// at 0, 20 and 40 ms. The first failure ends the call at 50 ms, and
	// no copy follows it.
	m := one(t, `{"workers": 4, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 10,
		"phases": [{"kind": "outage", "from": "0s", "to": "1h", "status": 500, "latency": "50ms"}]}`,
		`"max_attempts": 5, "hedging": {"delay": "20ms"}`)
	if m.Failed != 1 || m.GaveUpNotRetryable != 1 || m.LatencyMaxms != 50 {
		t.Errorf("failed %v (not retryable %v) after %v ms, want 1 (1) after 50 ms", m.Failed, m.GaveUpNotRetryable, m.LatencyMaxms)
	}
	if m.DependencyCalls != 3 || m.Hedges != 2 {
		t.Errorf("%v dependency calls, %v hedges; want 3 and 2 (copies at 0, 20 and 40 ms, none after the failure)", m.DependencyCalls, m.Hedges)
	}
}

func TestHedgingRetryableFailureSendsTheNextCopyAtOnce(t *testing.T) {
	// 503 at once: each failure brings the next copy forward, so all three
	// copies go at t = 0 though the delay is 1 s; the call fails with the
	// last one (out of attempts).
	m := one(t, alwaysFails, `"max_attempts": 3, "hedging": {"delay": "1s"}`)
	if m.DependencyCalls != 3 || m.Hedges != 2 || m.HedgesWon != 0 {
		t.Errorf("%v dependency calls, %v hedges, %v won; want 3, 2, 0", m.DependencyCalls, m.Hedges, m.HedgesWon)
	}
	if m.Failed != 1 || m.GaveUpAttempts != 1 || m.LatencyMaxms != 0 {
		t.Errorf("failed %v (out of attempts %v) after %v ms; want 1 (1) after 0 ms", m.Failed, m.GaveUpAttempts, m.LatencyMaxms)
	}
	// With a 503 after 50 ms instead, copies go at 0, 20 and 40 ms and
	// fail at 50, 70 and 90 ms: the call fails at 90 ms.
	m = one(t, `{"workers": 4, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 10,
		"phases": [{"kind": "outage", "from": "0s", "to": "1h", "status": 503, "latency": "50ms"}]}`,
		`"max_attempts": 3, "hedging": {"delay": "20ms"}`)
	if m.DependencyCalls != 3 || m.GaveUpAttempts != 1 || m.LatencyMaxms != 90 {
		t.Errorf("%v dependency calls, out of attempts %v, after %v ms; want 3, 1, 90 ms", m.DependencyCalls, m.GaveUpAttempts, m.LatencyMaxms)
	}
}

func TestHedgingTimeoutAndDeadline(t *testing.T) {
	slow := `{"workers": 4, "service_time": {"kind": "constant", "mean": "100ms"}, "queue_capacity": 10}`
	// attempt_timeout per copy: a copy timing out (retryable) brings the
	// next forward: copies at 0, 15 and 30 ms, the last timing out at 45 ms.
	m := one(t, slow, `"max_attempts": 3, "attempt_timeout": "15ms", "hedging": {"delay": "1s"}`)
	if m.DependencyCalls != 3 || m.GaveUpAttempts != 1 || m.LatencyMaxms != 45 || m.WastedWork != 3 {
		t.Errorf("%v dependency calls, out of attempts %v after %v ms, wasted %v; want 3, 1, 45 ms, 3", m.DependencyCalls, m.GaveUpAttempts, m.LatencyMaxms, m.WastedWork)
	}
	// The deadline counts from the call's start and ends every copy.
	m = one(t, slow, `"max_attempts": 5, "deadline": "30ms", "hedging": {"delay": "10ms"}`)
	if m.DependencyCalls != 3 || m.GaveUpDeadline != 1 || m.LatencyMaxms != 30 || m.WastedWork != 3 {
		t.Errorf("%v dependency calls, deadline %v after %v ms, wasted %v; want 3 (0, 10, 20 ms), 1, 30 ms, 3", m.DependencyCalls, m.GaveUpDeadline, m.LatencyMaxms, m.WastedWork)
	}
	// A copy is sent while min_attempt_time still fits before the
	// deadline, as a retry is: the copy at 20 ms has its 10 ms up to 30 ms,
	// and 11 ms would not fit.
	for _, tc := range []struct {
		min   string
		calls float64
	}{{"10ms", 3}, {"11ms", 2}} {
		m = one(t, slow, `"max_attempts": 5, "deadline": "30ms", "min_attempt_time": "`+tc.min+`", "hedging": {"delay": "10ms"}`)
		if m.DependencyCalls != tc.calls || m.GaveUpDeadline != 1 || m.LatencyMaxms != 30 {
			t.Errorf("min_attempt_time %s: %v dependency calls, deadline %v after %v ms; want %v, 1, 30 ms", tc.min, m.DependencyCalls, m.GaveUpDeadline, m.LatencyMaxms, tc.calls)
		}
	}
}

func TestHedgingBudget(t *testing.T) {
	// gRPC throttling applies to hedges: with every call failing at once,
	// tokens 10 → 9 … allow four hedges of the first operation, and after
	// that only first copies are sent (as TestTokenBucketSweep for retries).
	res := mustRun(t, `{"version": 1, "name": "budget",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 100, "operations": 1000},
		"dependency": `+alwaysFails+`,
		"strategies": [{"name": "h", "max_attempts": 5, "hedging": {"delay": "1s"},
			"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}}]}`)
	m := res.Strategies[0].Metrics
	if m.Hedges != 4 || m.DependencyCalls != 1004 || m.RetriesDenied != 999 || m.GaveUpBudget != 999 || m.GaveUpAttempts != 1 {
		t.Errorf("hedges %v, calls %v, denied %v, gave up for the budget %v and attempts %v; want 4, 1004, 999, 999, 1",
			m.Hedges, m.DependencyCalls, m.RetriesDenied, m.GaveUpBudget, m.GaveUpAttempts)
	}
	// A ratio budget caps hedges of a healthy dependency at its share of
	// first copies; a denied hedge is not sent, and the first copy still
	// wins.
	res = mustRun(t, `{"version": 1, "name": "ratio", "seed": 2,
		"workload": {"clients": 20, "arrival": "poisson", "rate": 200, "duration": "10s"},
		"dependency": `+longTail+`,
		"strategies": [
			{"name": "free", "max_attempts": 2, "hedging": {"delay": "10ms"}},
			{"name": "capped", "max_attempts": 2, "hedging": {"delay": "10ms"}, "budget": {"kind": "ratio", "ratio": 0.1}}]}`)
	free, capped := strategy(t, res, "free").Metrics, strategy(t, res, "capped").Metrics
	if free.Hedges < 0.3*free.Operations {
		t.Fatalf("only %v hedges for %v operations at the median delay", free.Hedges, free.Operations)
	}
	if capped.Hedges > 0.1*capped.FirstAttempts || capped.Hedges < 0.09*capped.FirstAttempts || capped.RetriesDenied == 0 {
		t.Errorf("the ratio budget let %v hedges through for %v first attempts (%v denied); want about 10%%", capped.Hedges, capped.FirstAttempts, capped.RetriesDenied)
	}
	if capped.Succeeded != capped.Operations || capped.GaveUpBudget != 0 {
		t.Errorf("a denied hedge failed calls: %v of %v succeeded, %v gave up for the budget", capped.Succeeded, capped.Operations, capped.GaveUpBudget)
	}
}

func TestHedgingNonIdempotentSendsOneCopy(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "pay", "seed": 4,
		"workload": {"clients": 20, "arrival": "poisson", "rate": 200, "duration": "5s", "mix": {"non_idempotent": 1}},
		"dependency": `+longTail+`,
		"strategies": [
			{"name": "safe", "max_attempts": 3, "hedging": {"delay": "10ms"}},
			{"name": "unsafe", "max_attempts": 3, "hedging": {"delay": "10ms"}, "retry_non_idempotent": true}]}`)
	safe, unsafe := strategy(t, res, "safe").Metrics, strategy(t, res, "unsafe").Metrics
	if safe.Hedges != 0 || safe.Duplicates != 0 || safe.DependencyCalls != safe.Operations {
		t.Errorf("non-idempotent operations were hedged: %v hedges, %v duplicates", safe.Hedges, safe.Duplicates)
	}
	if unsafe.Hedges == 0 || unsafe.Duplicates == 0 {
		t.Errorf("retry_non_idempotent: %v hedges, %v duplicates; hedging a payment charges twice", unsafe.Hedges, unsafe.Duplicates)
	}
}

func TestHedgingLoadsAnOverloadedDependency(t *testing.T) {
	// 90% busy: the hedges of the calls that wait in the queue add load,
	// the queue grows, and calls wait longer.
	res := mustRun(t, `{"version": 1, "name": "overload", "seed": 6,
		"workload": {"clients": 100, "arrival": "poisson", "rate": 900, "duration": "20s"},
		"dependency": {"workers": 10, "service_time": {"kind": "exponential", "mean": "10ms"}, "queue_capacity": 100000},
		"strategies": [
			{"name": "none", "max_attempts": 1},
			{"name": "hedge", "max_attempts": 2, "hedging": {"delay": "30ms"}}]}`)
	none, hedged := strategy(t, res, "none").Metrics, strategy(t, res, "hedge").Metrics
	if hedged.PeakPer1s <= none.PeakPer1s || hedged.PeakPer100ms <= none.PeakPer100ms {
		t.Errorf("peak calls per 1 s %v (100 ms: %v) with hedging, %v (%v) without: want more", hedged.PeakPer1s, hedged.PeakPer100ms, none.PeakPer1s, none.PeakPer100ms)
	}
	if hedged.DependencyCalls < 1.2*none.DependencyCalls || hedged.LatencyP50ms <= none.LatencyP50ms {
		t.Errorf("dependency calls %v vs %v, latency p50 %v vs %v ms: hedging an overloaded dependency should add load and latency",
			hedged.DependencyCalls, none.DependencyCalls, hedged.LatencyP50ms, none.LatencyP50ms)
	}
}

func TestHedgingDelayPercentileConverges(t *testing.T) {
	// A narrow distribution (p50 10 ms, p99 12 ms): its p90 is 10 ms ·
	// e^(1.2816·σ), σ = ln 1.2 / 2.3263. The window's p90 settles near it,
	// and about one call in ten hedges.
	sc, err := Parse([]byte(`{"version": 1, "name": "p90", "seed": 8,
		"workload": {"clients": 20, "arrival": "poisson", "rate": 200, "duration": "20s"},
		"dependency": {"workers": 100, "service_time": {"kind": "lognormal", "p50": "10ms", "p99": "12ms"}, "queue_capacity": 100},
		"strategies": [{"name": "h", "max_attempts": 2, "hedging": {"delay": "1ms", "delay_percentile": 90, "window": 500}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compile(sc)
	s := newSim(context.Background(), m, &m.strategies[0], m.seeds[0], 0)
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	w := s.inst[0][0].hedgeLat
	want := 10e6 * math.Exp(1.2816*math.Log(1.2)/2.3263)
	if w == nil || math.Abs(float64(w.delay)-want) > 0.03*want {
		t.Fatalf("delay %v, want within 3%% of the true p90 %.0f ns", w, want)
	}
	if len(w.ring) != 500 {
		t.Errorf("the window holds %d latencies, want 500", len(w.ring))
	}
	x := s.output(false).metrics
	if share := x.Hedges / x.Operations; share < 0.07 || share > 0.14 {
		t.Errorf("%.1f%% of calls hedged at the p90, want about 10%%", 100*share)
	}
	// Until 20 latencies are known the delay is hedging.delay (1 ms):
	// the first 20 operations all hedge.
	sc.Workload.Operations = 20
	sc.Workload.Arrival = ArrivalUniform
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := res.Strategies[0].Metrics.Hedges; h != 20 {
		t.Errorf("%v hedges of the first 20 operations, want 20 (delay 1 ms until 20 latencies are known)", h)
	}
}

func TestHedgingInsideBreakerStopsCopies(t *testing.T) {
	// A consecutive breaker (1 failure) inside a hedged level, a dependency
	// failing everything at once: the first copy fails and opens it, the
	// next copy is failed fast and ends the call (breaker); the following
	// operations fail fast at once.
	res := mustRun(t, `{"version": 1, "name": "breaker",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 100, "operations": 10},
		"dependency": `+alwaysFails+`,
		"strategies": [{"name": "h", "max_attempts": 3, "hedging": {"delay": "1s"},
			"breaker": {"kind": "consecutive", "failures": 1, "break": "1h"}}]}`)
	m := res.Strategies[0].Metrics
	if m.DependencyCalls != 1 || m.Hedges != 0 || m.FastFailed != 10 || m.GaveUpBreaker != 10 {
		t.Errorf("calls %v, hedges %v, fast failed %v, gave up on the breaker %v; want 1, 0, 10, 10", m.DependencyCalls, m.Hedges, m.FastFailed, m.GaveUpBreaker)
	}
}

// hedgedDigest is the SHA-256 of TestHedgingDeterministic's result JSON.
// It changes only when the engine changes a hedged scenario's result.
const hedgedDigest = "a424b1676576e88bcec07659c34f577031407888180a25766aa81143417e3f07"

func TestHedgingDeterministic(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "det", "runs": 2,
		"workload": {"clients": 30, "arrival": "poisson", "rate": 300, "duration": "10s"},
		"dependency": {"workers": 20, "service_time": {"kind": "lognormal", "p50": "10ms", "p99": "150ms"}, "queue_capacity": 50,
			"network": {"request": {"kind": "normal", "mean": "1ms", "stddev": "1ms"}, "answer": {"kind": "constant", "mean": "1ms"}},
			"phases": [{"kind": "errors", "from": "3s", "to": "5s", "rate": 0.5}, {"kind": "freeze", "from": "7s", "to": "7.5s"}]},
		"strategies": [
			{"name": "p", "max_attempts": 3, "attempt_timeout": "300ms", "deadline": "1s",
			 "hedging": {"delay": "40ms", "delay_percentile": 95, "window": 200},
			 "budget": {"kind": "token_bucket", "max_tokens": 20, "token_ratio": 0.2},
			 "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 20, "window": "1s", "break": "500ms"},
			 "layers": [{"max_attempts": 2, "attempt_timeout": "100ms", "hedging": {"delay": "20ms"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var out [2][]byte
	for k := range out {
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out[k], _ = json.Marshal(res)
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Fatal("two runs of a hedged scenario differ")
	}
	// The same bytes natively and under GOOS=js GOARCH=wasm (make
	// test-wasm runs this test too): the result's digest, computed natively.
	if sum := fmt.Sprintf("%x", sha256.Sum256(out[0])); sum != hedgedDigest {
		t.Errorf("the result's SHA-256 is %s, natively it was %s", sum, hedgedDigest)
	}
	var res Result
	if err := json.Unmarshal(out[0], &res); err != nil {
		t.Fatal(err)
	}
	if m := res.Strategies[0].Metrics; m.Hedges == 0 || res.Strategies[0].Spread["hedges"].Max == 0 {
		t.Errorf("no hedges (%v) or no spread of them in a hedged run", m.Hedges)
	}
}

func TestHedgingRandomScenarios(t *testing.T) {
	// The invariants of TestPropertiesOfRandomScenarios, with hedging on
	// random levels of random scenarios.
	n := *propertyRuns / 2
	if testing.Short() {
		n = min(n, 30)
	}
	r := rand.New(rand.NewPCG(14, 6))
	hedged, hedges, won := 0, 0.0, 0.0
	for i := range n {
		sc := randomScenario(r)
		if r.IntN(3) == 0 {
			// A network, so that answers travel back while callers give up.
			ms := func(n int) Duration { return Duration(r.IntN(n)) * Duration(1e6) }
			sc.Dependency.Network = &Network{Request: Delay{Kind: DelayConstant, Mean: ms(5)},
				Answer: Delay{Kind: DelayNormal, Mean: ms(20), Stddev: ms(10)}}
		}
		for si := range sc.Strategies {
			st := &sc.Strategies[si]
			levels := []*Policy{&st.Policy}
			for l := range st.Layers {
				levels = append(levels, &st.Layers[l])
			}
			for _, p := range levels {
				if r.IntN(2) == 0 {
					continue
				}
				p.MaxAttempts = 2 + r.IntN(3)
				// What has no meaning for copies is left out, as Validate
				// asks.
				p.Backoff, p.Jitter, p.HonorRetryAfter, p.Adaptive, p.DeadLetter = Backoff{}, Jitter{}, false, nil, false
				if p.Budget != nil && p.Budget.Kind == BudgetConcurrency {
					p.Budget = nil // not supported on a hedged level
				}
				p.Hedging = &Hedging{Delay: Duration(r.IntN(50)) * Duration(1e6)}
				if r.IntN(2) == 0 {
					p.Hedging.DelayPercentile = float64(50 + r.IntN(50))
					if r.IntN(2) == 0 {
						p.Hedging.Window = 20 + r.IntN(200)
					}
				}
			}
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("scenario %d: %v\n%s", i, err, sc.Canonical())
		}
		m := compile(sc)
		for si := range m.strategies {
			st := &m.strategies[si]
			s := newSim(context.Background(), m, st, m.seeds[0], 0)
			var problems []string
			s.observe = func(s *sim, what string, id int32) {
				if what == "attempt" {
					cl := &s.calls[id]
					lv := &s.st.levels[cl.level]
					if lv.hedging != nil && !cl.copy {
						problems = append(problems, fmt.Sprintf("hedged invocation %d made an attempt of its own", id))
					}
					if lv.breaker != nil && !lv.breakerOutside && s.inst[cl.level][cl.instance].brState == brOpen {
						problems = append(problems, fmt.Sprintf("attempt at %d through the open breaker of level %d", s.now, cl.level))
					}
					return
				}
				if what != "end" {
					return
				}
				op := &s.ops[id]
				if dl := s.st.levels[0].deadline; dl > 0 && s.now-op.start > dl {
					problems = append(problems, fmt.Sprintf("operation %d outlived its deadline: %d > %d", id, s.now-op.start, dl))
				}
			}
			if err := s.run(); err != nil {
				t.Fatalf("scenario %d: %v", i, err)
			}
			x := s.output(false).metrics
			check := func(ok bool, format string, args ...any) {
				t.Helper()
				if !ok {
					t.Fatalf("scenario %d strategy %s: %s\n%s", i, st.name, fmt.Sprintf(format, args...), sc.Canonical())
				}
			}
			check(len(problems) == 0, "%v", problems)
			all := 1.0
			for _, l := range st.levels {
				all *= float64(l.maxAttempts)
				if l.hedging != nil {
					hedged++
				}
			}
			check(x.Attempts <= float64(st.levels[0].maxAttempts)*x.Operations, "%v attempts for %v operations", x.Attempts, x.Operations)
			check(x.DependencyCalls <= all*x.Operations, "%v dependency calls > %v × %v operations", x.DependencyCalls, all, x.Operations)
			check(x.Succeeded+x.Failed == x.Operations, "succeeded + failed != operations")
			gaveUp := x.GaveUpAttempts + x.GaveUpDeadline + x.GaveUpBudget + x.GaveUpBreaker + x.GaveUpNotRetryable + x.GaveUpNonIdempotent + x.GaveUpUnreadable
			check(gaveUp == x.Failed, "%v give-ups for %v failures", gaveUp, x.Failed)
			check(x.HedgesWon <= x.Hedges && x.Hedges >= 0, "%v hedges won of %v", x.HedgesWon, x.Hedges)
			hedges, won = hedges+x.Hedges, won+x.HedgesWon
			if st.levels[0].hedging != nil && len(st.levels) == 1 {
				check(x.Hedges <= x.Retries, "%v hedges but %v retries", x.Hedges, x.Retries)
			}
			check(s.inflightOp == 0 && s.deps[0].busy == 0 && s.deps[0].queue.len() == 0 && s.travelling == 0, "the run ended with work left")
			live := 0
			for h := range s.hedges {
				live += len(s.hedges[h].live)
			}
			check(live == 0 && len(s.freeHedges) == len(s.hedges), "%d copies left out, %d of %d hedge states free", live, len(s.freeHedges), len(s.hedges))
			free := make([]bool, len(s.calls))
			for _, id := range s.freeCalls {
				check(!free[id], "call %d freed twice", id)
				free[id] = true
			}
			check(len(s.freeCalls) == len(s.calls), "%d of %d calls free at the end", len(s.freeCalls), len(s.calls))
		}
	}
	if hedged == 0 || hedges == 0 || won == 0 {
		t.Fatalf("%d levels hedged, %v hedges, %v won: the random scenarios do not exercise hedging", hedged, hedges, won)
	}
	t.Logf("%d hedged levels, %v hedges, %v won", hedged, hedges, won)
}

func TestHedgingEstimateCountsCopies(t *testing.T) {
	// Every copy of a hedged level is counted in the estimate as an
	// attempt: it bounds what a run with hedges on every call processes.
	sc, err := Parse([]byte(`{"version": 1, "name": "estimate",
		"workload": {"clients": 20, "arrival": "poisson", "rate": 200, "duration": "10s"},
		"dependency": {"workers": 100, "service_time": {"kind": "constant", "mean": "50ms"}, "queue_capacity": 100},
		"strategies": [{"name": "h", "max_attempts": 3, "hedging": {"delay": "1ms"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Strategies[0].Metrics; m.Hedges != 2*m.Operations {
		t.Fatalf("%v hedges for %v operations, want two each", m.Hedges, m.Operations)
	}
	if e := Estimate(sc); e < res.Events {
		t.Errorf("estimate %d events, the run processed %d", e, res.Events)
	}
}

func TestHedgingBreakerLetsTheCopyOutWin(t *testing.T) {
	// Operation A starts at 0 ms (served in 50 ms); an outage from 5 ms
	// fails operation B (10 ms) at once, which opens the breaker, and B's
	// next copy fails fast: B gives up on the breaker. A's hedge, due at
	// 20 ms, fails fast too, but A's first copy is still out and wins at
	// 50 ms.
	res := mustRun(t, `{"version": 1, "name": "breaker",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 100, "operations": 2},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "50ms"}, "queue_capacity": 10,
			"phases": [{"kind": "outage", "from": "5ms", "to": "1h", "status": 503}]},
		"strategies": [{"name": "h", "max_attempts": 3, "hedging": {"delay": "20ms"},
			"breaker": {"kind": "consecutive", "failures": 1, "break": "1h"}}]}`)
	m := res.Strategies[0].Metrics
	if m.Succeeded != 1 || m.GaveUpBreaker != 1 || m.FastFailed != 2 || m.DependencyCalls != 2 || m.Hedges != 0 {
		t.Errorf("succeeded %v, gave up on the breaker %v, fast failed %v, calls %v, hedges %v; want 1, 1, 2, 2, 0",
			m.Succeeded, m.GaveUpBreaker, m.FastFailed, m.DependencyCalls, m.Hedges)
	}
	if m.SuccessLatencyMaxms != 50 || m.LatencyP50ms != 0 {
		t.Errorf("success after %v ms, failure after %v ms; want 50 and 0", m.SuccessLatencyMaxms, m.LatencyP50ms)
	}
}

func TestHedgingAfterFailureWait(t *testing.T) {
	// 503 at once, with after_failure "wait": a failure brings nothing
	// forward, so the copies leave at their delay, 0, 1 and 2 s, and the
	// call fails with the last at 2 s (failsafe-go with CancelIf).
	m := one(t, alwaysFails, `"max_attempts": 3, "hedging": {"delay": "1s", "after_failure": "wait"}`)
	if m.DependencyCalls != 3 || m.Hedges != 2 || m.HedgesWon != 0 {
		t.Errorf("%v dependency calls, %v hedges, %v won; want 3, 2, 0", m.DependencyCalls, m.Hedges, m.HedgesWon)
	}
	if m.Failed != 1 || m.LatencyMaxms != 2000 {
		t.Errorf("failed %v after %v ms; want 1 after 2000 ms", m.Failed, m.LatencyMaxms)
	}
	// A deadline of 1.5 s leaves no room for the third copy.
	m = one(t, alwaysFails, `"max_attempts": 3, "deadline": "1500ms", "hedging": {"delay": "1s", "after_failure": "wait"}`)
	if m.DependencyCalls != 2 || m.Failed != 1 {
		t.Errorf("with a deadline of 1.5 s: %v dependency calls, failed %v; want 2, 1", m.DependencyCalls, m.Failed)
	}
}

// TestHedgingFixedDelayKeepsNoLatencies: only delay_percentile reads
// the copies' latencies, so a fixed delay keeps none (no window of up to
// DefaultHedgeWindow of them per instance, no percentile recomputed).
// With a percentile the window fills with every copy that won.
func TestHedgingFixedDelayKeepsNoLatencies(t *testing.T) {
	const js = `{"version": 1, "name": "hedge",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 30},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 10},
		"strategies": [{"name": "h", "max_attempts": 2, "hedging": {"delay": "1ms"PCT}}]}`
	for _, c := range []struct {
		pct  string
		kept int
	}{{"", 0}, {`, "delay_percentile": 90`, 30}} {
		sc, err := Parse([]byte(strings.Replace(js, "PCT", c.pct, 1)))
		if err != nil {
			t.Fatal(err)
		}
		m := compile(sc)
		s := newSim(context.Background(), m, &m.strategies[0], m.seeds[0], 0)
		if err := s.run(); err != nil {
			t.Fatal(err)
		}
		kept := 0
		if w := s.inst[0][0].hedgeLat; w != nil {
			kept = len(w.ring)
		}
		if s.c.succeeded != 30 || kept != c.kept {
			t.Errorf("hedging%s: %d succeeded, %d latencies kept; want 30 and %d", c.pct, s.c.succeeded, kept, c.kept)
		}
	}
}
