package engine

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// wantEstimate is Estimate of sc, a scenario of one strategy on one seed
// and without a sweep or a search, whose operations are ops and whose
// events per operation, in units of 3, are perOp (worked out by hand in
// each test): the operations' events, one simulation's set-up, the
// caches' laws and the result's numbers, rounded down, plus one.
func wantEstimate(sc *Scenario, ops, perOp float64) float64 {
	return math.Floor(ops*perOp*3+setupCost(sc)+cacheSetup(sc)+estimateSize(sc, true)) + 1
}

// checkEstimate fails t unless Estimate(sc) is wantEstimate(sc, ops,
// perOp), give or take the one event that sums of thirds may round away.
func checkEstimate(t *testing.T, sc *Scenario, ops, perOp float64) {
	t.Helper()
	if got, want := float64(Estimate(sc)), wantEstimate(sc, ops, perOp); math.Abs(got-want) > 1 {
		t.Errorf("Estimate = %v, want %v (%v operations × %v × 3 events, and the rest)", got, want, ops, perOp)
	}
}

// TestEstimateCountsEachCallsExtraEvents: each plan call of an operation
// costs its attempts × 3 events, plus, in units of 3 events, its start and
// end in the plan (2), a wait for a pool slot and its time-out (2), the
// same for a bulkhead on its dependency (2), its fallback's latency (1,
// none for a fallback that answers at once),
// a timer and a cancellation for every hedged copy (2 each), a token, a
// short wait, a lowered rate and a give-up for every rate-limited attempt
// (4 each), and a grant and a give-up for every attempt that waits for a
// connection (2 each). Two calls, a and b, of 2 attempts each, 10
// operations a second for 10 s: 100 operations.
func TestEstimateCountsEachCallsExtraEvents(t *testing.T) {
	scenario := func(t *testing.T, strategy string) *Scenario {
		return parseCost(t, `{"version": 1, "name": "extra", "runs": 1,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s",
				"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]},
			"dependencies": [
				{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}],
			"strategies": [{"name": "s", "max_attempts": 2`+strategy+`}]}`)
	}
	for _, tc := range []struct {
		name, strategy string
		perOp          float64
	}{
		// 2 calls × (2 + 2/3).
		{"a plan of two calls", ``, 2 * (2 + 2.0/3)},
		// 2 calls × (2 + (2+2)/3).
		{"a pool", `, "pool": {"slots": 2, "max_waiting": 4, "max_wait": "10ms"}`, 2 * (2 + 4.0/3)},
		// a: 2 + (2+2)/3; b: 2 + 2/3.
		{"a bulkhead on a", `, "bulkheads": [{"dependency": "a", "max_concurrent": 2, "max_waiting": 4, "max_wait": "10ms"}]`, 2 + 4.0/3 + 2 + 2.0/3},
		// a: 2 + 2/3; b: 2 + (2+1)/3.
		{"a fallback for b", `, "fallbacks": [{"call": "b", "latency": "1ms"}]`, 2 + 2.0/3 + 2 + 3.0/3},
		// A fallback that answers at once takes no event: 2 × (2 + 2/3).
		{"a fallback for b without latency", `, "fallbacks": [{"call": "b"}]`, 2 * (2 + 2.0/3)},
		// 2 calls × (2 + (2+2×2)/3).
		{"hedged", `, "hedging": {"delay": "20ms"}`, 2 * (2 + 6.0/3)},
		// 2 calls × (2 + (2+4×2)/3).
		{"a client rate limit", `, "client_rate_limit": {"kind": "aws-adaptive"}`, 2 * (2 + 10.0/3)},
		// 2 calls × (2 + (2+2×2)/3).
		{"connection limits", `, "connection_limits": {"max_connections": 2, "max_pending": 2}`, 2 * (2 + 6.0/3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkEstimate(t, scenario(t, tc.strategy), 100, tc.perOp)
		})
	}
}

// TestEstimateBoundsUnlimitedAttemptsByAWindowedBudget: a level without
// max_attempts whose retries a windowed ratio budget bounds is counted as
// the first attempt and the budget's retries spread over the operations:
// 2 × ratio × first attempts, plus the minimum's reserve (1 without
// min_per_second) for each window piece the simulation's span reaches,
// ⌈span / window⌉ + 1, and each instance's state. 100 operations, each
// counted at first as 101 attempts (a constant backoff of 100 ms over
// the 10 s of arrivals), without a network.
func TestEstimateBoundsUnlimitedAttemptsByAWindowedBudget(t *testing.T) {
	for _, window := range []string{"1s", "3s"} {
		t.Run(window, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "budgeted", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				"strategies": [{"name": "s", "max_attempts": 0, "backoff": {"kind": "constant", "base": "100ms"},
					"budget": {"kind": "ratio", "ratio": 0.1, "window": "`+window+`"}}]}`)
			if n := estimateAttempts(sc, &sc.Strategies[0].Policy).n; n != 101 {
				t.Fatalf("unbounded, the policy is counted as %v attempts, want 101", n)
			}
			_, span := estimateSpan(sc)
			pieces := math.Ceil(span/float64(sc.Strategies[0].Budget.Window)) + 1
			if pieces < 5 {
				t.Fatalf("a span of %v ns reaches %v pieces of %s: the test needs more", span, pieces, window)
			}
			retries := 2*0.1*100 + pieces*1*1
			checkEstimate(t, sc, 100, 1+retries/100)
		})
	}
}

// TestSetupCountsEachHedgedLevelsLatencyWindow: a level hedged at a
// percentile of its latencies keeps a window of them (1,000 unless it
// says) on each of its instances for every plan call, set up as clients
// are, at a sixteenth of an event a slot. Two plan calls; the base is
// the same strategy hedged after a fixed delay.
func TestSetupCountsEachHedgedLevelsLatencyWindow(t *testing.T) {
	scenario := func(t *testing.T, strategy string) *Scenario {
		return parseCost(t, `{"version": 1, "name": "windows", "runs": 1,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s",
				"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]},
			"dependencies": [
				{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}],
			"strategies": [{"name": "s", "max_attempts": 2, `+strategy+`}]}`)
	}
	const fixed = `"hedging": {"delay": "20ms"}`
	for _, tc := range []struct {
		name, base, hedged string
		want               float64
	}{
		// 2 instances × 200 × 2 calls / 16.
		{"200 on each of 2 instances", `"instances": 2, ` + fixed,
			`"instances": 2, "hedging": {"delay": "20ms", "delay_percentile": 95, "window": 200}`, 2 * 200 * 2 / 16.0},
		// 1 instance × 1,000 × 2 calls / 16.
		{"the default window", fixed, `"hedging": {"delay": "20ms", "delay_percentile": 95}`, 1000 * 2 / 16.0},
		// The layer's own 3 instances × 400 × 2 calls / 16.
		{"a layer's", `"layers": [{"max_attempts": 2, "instances": 3, ` + fixed + `}]`,
			`"layers": [{"max_attempts": 2, "instances": 3, "hedging": {"delay": "20ms", "delay_percentile": 95, "window": 400}}]`, 3 * 400 * 2 / 16.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := setupCost(scenario(t, tc.hedged)) - setupCost(scenario(t, tc.base)); got != tc.want {
				t.Errorf("the window adds %v events of setup, want %v", got, tc.want)
			}
		})
	}
}

// TestEstimateStopsAtHalfTheLargestCount: an estimate past half the
// largest int64 is that half, so that sums of estimates cannot overflow;
// one below it is counted. Two strategies of 100 × 100 attempts an
// operation, 3 events each, over 1,000 runs of 24 h at a rate r:
// 2 × 1,000 × 86,400 r × 30,000 = 5.184e12 r events, 5.184e18 at 10⁶ a
// second, past the half (4.61e18); 2.592e18 at half the rate.
func TestEstimateStopsAtHalfTheLargestCount(t *testing.T) {
	for _, tc := range []struct {
		rate     string
		min, max int64
	}{
		{"500000", 2.592e18, 2.593e18},
		{"1000000", math.MaxInt64 / 2, math.MaxInt64 / 2},
	} {
		t.Run(tc.rate, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "huge", "runs": 1000,
				"workload": {"clients": 1, "arrival": "uniform", "rate": `+tc.rate+`, "duration": "24h"},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				"strategies": [{"name": "s", "max_attempts": 100, "layers": [{"max_attempts": 100}]},
					{"name": "t", "max_attempts": 100, "layers": [{"max_attempts": 100}]}]}`)
			if got := Estimate(sc); got < tc.min || got > tc.max {
				t.Errorf("Estimate = %d, want %d to %d", got, tc.min, tc.max)
			}
		})
	}
}

// TestEstimateAtExactlyTheCap: an estimate that comes to exactly 2⁶² as
// a float64, the cap's own value as one, is the cap too, not one past
// it (996 runs of 24 h at this rate, 100 × 100 × 100 attempts, land on
// it exactly).
func TestEstimateAtExactlyTheCap(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "cap", "runs": 996,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 17863.452336975628, "duration": "24h"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		"strategies": [{"name": "s", "max_attempts": 100, "layers": [{"max_attempts": 100}, {"max_attempts": 100}]}]}`)
	if got := Estimate(sc); got != math.MaxInt64/2 {
		t.Errorf("Estimate = %d, want the cap %d", got, int64(math.MaxInt64/2))
	}
	for _, f := range []float64{math.MaxInt64 / 2, math.Inf(1), math.NaN(), 1e30} {
		if got := capped(f); got != math.MaxInt64/2 {
			t.Errorf("capped(%g) = %d, want %d", f, got, int64(math.MaxInt64/2))
		}
	}
	if got := capped(math.Nextafter(math.MaxInt64/2, 0)); got != 1<<62-512 {
		t.Errorf("capped(the float64 below 2⁶²) = %d, want %d", got, int64(1<<62-512))
	}
}

// TestCheckCostRefusesOnlyPastTheLimit: a scenario estimated at exactly
// the limit runs; one event less refuses it, with the estimate and the
// limit; a limit of 0 is none.
func TestCheckCostRefusesOnlyPastTheLimit(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "limit", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		"strategies": [{"name": "s", "max_attempts": 2}]}`)
	est := Estimate(sc)
	for _, limit := range []int64{0, est, est + 1} {
		if err := CheckCost(sc, limit); err != nil {
			t.Errorf("limit %d, estimate %d: %v", limit, est, err)
		}
	}
	var ce *CostError
	if err := CheckCost(sc, est-1); !errors.As(err, &ce) || ce.Estimate != est || ce.Limit != est-1 || ce.Detail == nil {
		t.Errorf("limit %d, estimate %d: %#v, want a CostError with both and a detail", est-1, est, err)
	}
}

// TestEstimateCountsEachNetworkLegOfEveryHop: every attempt at every
// level is a hop, and each leg of the dependency's network that takes
// time is one event on it; a contention read adds its request and answer
// to every hop when the network takes time, nothing without one. 100
// operations; 2 attempts at level 0 and 3 at a layer under each: 2 + 6 =
// 8 hops, 6 attempts, 6 + legs × 8 / 3 events in units of 3.
func TestEstimateCountsEachNetworkLegOfEveryHop(t *testing.T) {
	const leg = `{"kind": "constant", "mean": "1ms"}`
	for _, tc := range []struct {
		name, dep string
		legs      float64
	}{
		{"no network", ``, 0},
		{"a contention read without a network", `, "contention": {}`, 0},
		{"a request leg", `, "network": {"request": ` + leg + `}`, 1},
		{"an answer leg", `, "network": {"answer": ` + leg + `}`, 1},
		{"both legs", `, "network": {"request": ` + leg + `, "answer": ` + leg + `}`, 2},
		{"a leg and a contention read", `, "network": {"answer": ` + leg + `}, "contention": {}`, 3},
		{"both legs and a contention read", `, "network": {"request": ` + leg + `, "answer": ` + leg + `}, "contention": {}`, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "legs", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4`+tc.dep+`},
				"strategies": [{"name": "s", "max_attempts": 2, "layers": [{"max_attempts": 3}]}]}`)
			checkEstimate(t, sc, 100, 6+tc.legs*8/3)
		})
	}
}

// TestSetupCostByHand: a simulation's set-up is 1,000 events, a
// sixteenth of one a client (the fleets' with the workload's), 2 an
// instance of the costliest strategy (each level's, at least 1, with a
// budget and a breaker for each dependency, and a budget more for each
// level-0 instance's pool and bulkheads), and one a counting bin; with
// several dependencies each is set up as the first is: 1,000 events and
// a sixteenth of one a worker.
func TestSetupCostByHand(t *testing.T) {
	const one = `"dependency": {"workers": 16, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}`
	const two = `"dependencies": [
		{"name": "a", "workers": 16, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		{"name": "b", "workers": 32, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}]`
	const plan = `, "plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]`
	for _, tc := range []struct {
		name, workload, deps, strategies string
		want                             float64 // less the bins
	}{
		// 1,000 + 32/16 + 2 × 3.
		{"3 instances", ``, one, `{"name": "s", "max_attempts": 2, "instances": 3}`, 1000 + 2 + 2*3},
		// 1,000 + 32/16 + 2 × (3 + 2 + 1).
		{"layers' instances", ``, one, `{"name": "s", "max_attempts": 2, "instances": 3,
			"layers": [{"max_attempts": 2, "instances": 2}, {"max_attempts": 2}]}`, 1000 + 2 + 2*6},
		// 1,000 + 32/16 + 2 × 5: the costlier strategy's.
		{"two strategies", ``, one, `{"name": "s", "max_attempts": 2, "instances": 5},
			{"name": "t", "max_attempts": 2, "instances": 3}`, 1000 + 2 + 2*5},
		// 1,000 + (32 + 16)/16 + 2 × (1 + 1): the fleet's own instance.
		{"a fleet's clients", `, "fleets": [{"name": "old", "clients": 16, "rate": 5, "max_attempts": 2}]`, one,
			`{"name": "s", "max_attempts": 2}`, 1000 + 3 + 2*2},
		// 1,000 + 32/16 + 2 × 3 × 2 dependencies + 1,000 + 16/16 + 1,000 + 32/16.
		{"two dependencies", plan, two, `{"name": "s", "max_attempts": 2, "instances": 3}`, 1000 + 2 + 2*6 + 1001 + 1002},
		// 1,000 + 32/16 + 2 × (3 × 2 dependencies + 3 × (a pool and a bulkhead)) + 2,003.
		{"a pool and a bulkhead", plan, two, `{"name": "s", "max_attempts": 2, "instances": 3,
			"pool": {"slots": 2, "max_waiting": 4, "max_wait": "10ms"},
			"bulkheads": [{"dependency": "a", "max_concurrent": 2, "max_waiting": 4, "max_wait": "10ms"}]}`, 1000 + 2 + 2*(6+6) + 2003},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "setup", "runs": 1,
				"workload": {"clients": 32, "arrival": "poisson", "rate": 10, "duration": "10s"`+tc.workload+`},
				`+tc.deps+`, "strategies": [`+tc.strategies+`]}`)
			if got, want := setupCost(sc), tc.want+estimateBins(sc); got != want {
				t.Errorf("setupCost = %v, want %v (%v and %v bins)", got, want, tc.want, estimateBins(sc))
			}
		})
	}
}

// TestServersSetupByHand: each backend is set up as a dependency is,
// 1,000 events and a sixteenth of one a worker, and steps through the
// phases that hit it, 2 events each; an autoscaler over backends sets up
// as many as its max; a warm cache puts as many keys as it holds; a Zipf
// law takes a quarter of an event a key, once a run.
func TestServersSetupByHand(t *testing.T) {
	const phase, later = `{"kind": "latency", "factor": 2, "from": "1s", "to": "2s"`, `{"kind": "latency", "factor": 2, "from": "3s", "to": "4s"`
	for _, tc := range []struct {
		name, dep     string
		servers, zipf float64
	}{
		{"none", ``, 0, 0},
		// 3 × (1,000 + 16/16).
		{"3 backends", `, "backends": {"count": 3}`, 3 * 1001, 0},
		// 3 × 1,001, a phase on 2 of them and one on all 3.
		{"phases on backends", `, "backends": {"count": 3}, "phases": [` + phase + `, "backends": [0, 2]}, ` + later + `}]`, 3*1001 + 2*2 + 3*2, 0},
		// 4 × 1,001, a phase on the first ⌈0.3 × 4⌉ = 2.
		{"a share of the backends", `, "backends": {"count": 4}, "phases": [` + phase + `, "backend_share": 0.3}]`, 4*1001 + 2*2, 0},
		// 6 slots of 1,001.
		{"an autoscaler over backends", `, "backends": {"count": 2}, "autoscale": {"metric": "utilization", "target": 0.8, "period": "15s", "min": 1, "max": 6}`, 6 * 1001, 0},
		{"a cold cache", `, "cache": {"keys": {"law": "uniform", "count": 1000}, "capacity": 100}`, 0, 0},
		{"a warm cache smaller than its keys", `, "cache": {"keys": {"law": "uniform", "count": 1000}, "capacity": 100, "warm": true}`, 100, 0},
		{"a warm cache larger than its keys", `, "cache": {"keys": {"law": "uniform", "count": 300}, "capacity": 1000, "warm": true}`, 300, 0},
		// 1,000 keys / 4.
		{"a Zipf law", `, "cache": {"keys": {"law": "zipf", "exponent": 0.8, "count": 1000}, "capacity": 100}`, 0, 250},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "servers", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
				"dependency": {"workers": 16, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4`+tc.dep+`},
				"strategies": [{"name": "s", "max_attempts": 2}]}`)
			if got := serversSetup(&sc.Dependency); got != tc.servers {
				t.Errorf("serversSetup = %v, want %v", got, tc.servers)
			}
			if got := cacheSetup(sc); got != tc.zipf {
				t.Errorf("cacheSetup = %v, want %v", got, tc.zipf)
			}
		})
	}
}

// TestEstimateBoundsUnlimitedAttemptsByABucketsStates: a token bucket
// bounds the retries of a level without max_attempts to what its buckets
// hold and earn: (states × max_tokens + token_ratio × first attempts) /
// (1 − token_ratio) + 1, over all the simulation's invocations. Its
// states are its level's instances (a layer's own) for each dependency;
// its first attempts the invocations × the attempts of the levels above;
// when it allows more than the level's attempts, they bound it. 100
// operations; max_tokens 10, token_ratio 0.1.
func TestEstimateBoundsUnlimitedAttemptsByABucketsStates(t *testing.T) {
	const budget = `"max_attempts": 0, "backoff": {"kind": "constant", "base": "100ms"},
		"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}`
	const one = `"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}`
	retries := func(states, firsts float64) float64 { return (states*10+0.1*firsts)/0.9 + 1 }
	for _, tc := range []struct {
		name, workload, deps, strategy string
		perOp                          float64
	}{
		// 4 instances' buckets, 100 first attempts.
		{"at level 0", ``, one, `"instances": 4, ` + budget, 1 + retries(4, 100)/100},
		// The layer's 3 instances' buckets, under 2 attempts: 200 first attempts.
		{"at a layer", ``, one, `"max_attempts": 2, "instances": 2, "layers": [{"instances": 3, ` + budget + `}]`,
			2 + retries(3, 200)/100},
		// One instance's bucket for each of 2 dependencies, 2 calls of each
		// operation: 200 invocations, each a first attempt, and the plan's
		// 2/3 a call.
		{"two dependencies", `, "plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]`, `"dependencies": [
				{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}]`,
			budget, 2 * (1 + retries(2, 200)/200 + 2.0/3)},
		// A bucket of 100,000 tokens allows more than the 101 attempts the
		// backoff fits in the arrivals' 10 s: those bound it.
		{"a bucket larger than the attempts", ``, one, `"max_attempts": 0, "backoff": {"kind": "constant", "base": "100ms"},
			"budget": {"kind": "token_bucket", "max_tokens": 100000, "token_ratio": 0.1}`, 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "bucket", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"`+tc.workload+`},
				`+tc.deps+`, "strategies": [{"name": "s", `+tc.strategy+`}]}`)
			checkEstimate(t, sc, 100, tc.perOp)
		})
	}
}

// TestCostErrorSaysWhatToReduce: a refusal names the estimate and the
// limit, how the estimate multiplies, and what to reduce: the sweep's
// values and the search's candidates only when the scenario has them,
// each policy counted past the cap first, the last choice after "or"; a
// cost without a bound says why; a stopped simulation says that its
// estimate fell short.
func TestCostErrorSaysWhatToReduce(t *testing.T) {
	const limit = `over the limit of 1000; `
	for _, tc := range []struct {
		name string
		err  CostError
		want []string // in order
	}{
		{"in general", CostError{Estimate: 2000, Limit: 1000},
			[]string{"estimated at 2000 events", "× strategies × runs × sweep values, plus every search candidate on every seed; plus",
				limit + "reduce the workload, attempts, clients, runs, strategies, sweep values or search candidates"}},
		{"stopped", CostError{Estimate: 2000, Limit: 1000, Processed: 1001, Detail: &CostDetail{}},
			[]string{"it processed more than 1000 events, the limit for this run; "}},
		{"plain", CostError{Estimate: 2000, Limit: 1000, Detail: &CostDetail{}},
			[]string{"× strategies × runs; plus", limit + "reduce the workload, attempts, clients, runs or strategies"}},
		{"a sweep", CostError{Estimate: 2000, Limit: 1000, Detail: &CostDetail{Sweep: true}},
			[]string{"× strategies × runs × sweep values; plus", limit + "reduce the workload, attempts, clients, runs, strategies or sweep values"}},
		{"a search", CostError{Estimate: 2000, Limit: 1000, Detail: &CostDetail{Search: true}},
			[]string{"× strategies × runs, plus every search candidate on every seed; plus",
				limit + "reduce the workload, attempts, clients, runs, strategies or search candidates"}},
		{"unlimited policies", CostError{Estimate: 2000, Limit: 1000, Detail: &CostDetail{Unlimited: []string{"A", "B"}}},
			[]string{limit + "A; B; or reduce the workload, attempts, clients, runs or strategies"}},
		{"no bound", CostError{Estimate: 2000, Limit: 1000, Detail: &CostDetail{Unbounded: "why", Unlimited: []string{"A"}}},
			[]string{"the scenario's cost has no bound: why"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := tc.err.Error()
			rest := msg
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("%q\ndoes not say, in order, %q", msg, w)
				}
				rest = rest[i+len(w):]
			}
			if tc.name != "in general" && tc.name != "stopped" && rest != "" {
				t.Errorf("%q\ngoes on after what to reduce: %q", msg, rest)
			}
		})
	}
	if msg := (&CostError{Estimate: 2000, Limit: 1000}).Error(); strings.Contains(msg, "processed") {
		t.Errorf("an estimate refused before any run: %q", msg)
	}
}

// TestCostDetailNamesEachUnlimitedLevel: the detail of a refusal names
// each level that retries without limit and is counted past the cap,
// once however many sweep values have it, a layer by its number, with
// the fix its deadline leaves; a level that nothing bounds makes the
// cost unbounded, the first such level named; a budget that bounds a
// level's retries leaves it out, one that cannot does not. Steps of 15 ms (the network's round
// trip) over 3 s fit 201 attempts; over the 10 s of arrivals, 667.
func TestCostDetailNamesEachUnlimitedLevel(t *testing.T) {
	scenario := func(t *testing.T, strategies, sweep string) *Scenario {
		return parseCost(t, `{"version": 1, "name": "detail", "runs": 1,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4,
				"network": {"request": {"kind": "constant", "mean": "10ms"}, "answer": {"kind": "constant", "mean": "5ms"}}},
			"strategies": [`+strategies+`]`+sweep+`}`)
	}
	const (
		deadline = `strategy "A" retries without limit (max_attempts 0): counted as up to 201 attempts an operation (its deadline of 3s over 15ms between attempts); give it max_attempts, a shorter deadline or longer waits`
		elapsed  = `strategy "A" retries without limit (max_attempts 0): counted as up to 201 attempts an operation (its max_elapsed of 3s over 15ms between attempts); give it max_attempts, a shorter deadline or longer waits`
		arrivals = `strategy "B" layer 2 retries without limit (max_attempts 0): counted as up to 667 attempts an operation (the 10s to the end of its arrivals and faults over 15ms between attempts); give it max_attempts or a deadline`
	)
	for _, tc := range []struct {
		name, strategies, sweep string
		want                    []string
		sweeps                  bool
	}{
		{"a deadline", `{"name": "A", "max_attempts": 0, "deadline": "3s"}`, ``, []string{deadline}, false},
		{"max_elapsed", `{"name": "A", "max_attempts": 0, "max_elapsed": "3s"}`, ``, []string{elapsed}, false},
		{"a layer without a deadline", `{"name": "A", "max_attempts": 0, "deadline": "3s"},
			{"name": "B", "max_attempts": 2, "layers": [{"max_attempts": 2}, {"max_attempts": 0}]}`, ``, []string{deadline, arrivals}, false},
		{"bounded by a budget", `{"name": "A", "max_attempts": 0, "deadline": "3s", "budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}}`, ``, nil, false},
		// A retry costing no more than a success earns bounds nothing.
		{"a budget that earns what it spends", `{"name": "A", "max_attempts": 0, "deadline": "3s", "budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 1}}`, ``, []string{deadline}, false},
		{"in each sweep value, once", `{"name": "A", "max_attempts": 0, "deadline": "3s"}`,
			`, "sweep": {"path": "workload.clients", "values": [1, 2]}`, []string{deadline}, true},
		{"in one sweep value", `{"name": "A", "max_attempts": 2, "deadline": "3s"}`,
			`, "sweep": {"path": "strategies[0].max_attempts", "values": [2, 0]}`, []string{deadline}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := costDetail(scenario(t, tc.strategies, tc.sweep))
			if !slices.Equal(d.Unlimited, tc.want) || d.Unbounded != "" || d.Sweep != tc.sweeps || d.Search {
				t.Errorf("detail %+v,\nwant Unlimited %q and Sweep %v", d, tc.want, tc.sweeps)
			}
		})
	}
	// Without a network an unlimited level without a backoff retries at
	// the same instant: nothing bounds it.
	sc := parseCost(t, `{"version": 1, "name": "unbounded", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		"strategies": [{"name": "A", "max_attempts": 2}, {"name": "B", "max_attempts": 0}, {"name": "C", "max_attempts": 2, "layers": [{"max_attempts": 0}]}]}`)
	if d := costDetail(sc); !strings.HasPrefix(d.Unbounded, `strategy "B" retries without limit (max_attempts 0) and nothing bounds the time between its attempts`) || len(d.Unlimited) > 0 {
		t.Errorf("detail %+v, want it unbounded by strategy B and nothing else", d)
	}
}

// TestEstimateOfASweepIsEachValuesWithoutSeries: a sweep runs the
// scenario once for each value, each at its own cost and keeping no time
// series, and its estimate is their sum, at most half the largest int64.
func TestEstimateOfASweepIsEachValuesWithoutSeries(t *testing.T) {
	scenario := func(rate, sweep string) *Scenario {
		return parseCost(t, `{"version": 1, "name": "sweep", "runs": 1000,
			"workload": {"clients": 1, "arrival": "uniform", "rate": `+rate+`, "duration": "24h"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
			"strategies": [{"name": "s", "max_attempts": 100, "layers": [{"max_attempts": 100}, {"max_attempts": 100}]}]`+sweep+`}`)
	}
	one := func(rate string) int64 { return estimate(scenario(rate, ``), false) }
	if got, want := Estimate(scenario("1", `, "sweep": {"path": "workload.rate", "values": [1, 3]}`)), one("1")+one("3"); got != want {
		t.Errorf("a sweep over rates 1 and 3 estimated at %d, want %d (%d + %d)", got, want, one("1"), one("3"))
	}
	if one("1") == Estimate(scenario("1", ``)) {
		t.Fatalf("the test needs the series to count: %d either way", one("1"))
	}
	// 1,000 runs of 86,400 r operations of 100³ attempts, 3 events each:
	// 2.6e14 r events, 2.6e18 at a rate of 10,000 and 3.9e18 at 15,000:
	// each under the cap (4.6e18), their sum over it.
	for _, rate := range []string{"10000", "15000"} {
		if e := one(rate); e >= math.MaxInt64/2 {
			t.Fatalf("rate %s estimated at %d: the test needs it under the cap", rate, e)
		}
	}
	if got := Estimate(scenario("10000", `, "sweep": {"path": "workload.rate", "values": [10000, 15000]}`)); got != math.MaxInt64/2 {
		t.Errorf("a sweep past the cap estimated at %d, want %d", got, int64(math.MaxInt64/2))
	}
}

// TestEstimateCountsEachCallAtItsOwnCost: a plan call costs its own
// dependency's network legs on every hop, and the events of its own
// fallback, by the call's name. Calls to a (two legs), to b (none) and
// a second to b named b2, with a fallback for b2 of 1 ms; 2 attempts,
// 100 operations: (2 + 2 × 2/3 + 2/3) + (2 + 2/3) + (2 + (2+1)/3).
func TestEstimateCountsEachCallAtItsOwnCost(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "calls", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s",
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}, {"dependency": "b", "name": "b2"}]}]},
		"dependencies": [
			{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4,
				"network": {"request": {"kind": "constant", "mean": "1ms"}, "answer": {"kind": "constant", "mean": "1ms"}}},
			{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}],
		"strategies": [{"name": "s", "max_attempts": 2, "fallbacks": [{"call": "b2", "latency": "1ms"}]}]}`)
	checkEstimate(t, sc, 100, (2+4.0/3+2.0/3)+(2+2.0/3)+(2+3.0/3))
}

// TestEstimateCountsABulkheadOnTheOneDependency: without a plan an
// operation makes one call to the one dependency, by its name or, unnamed,
// as "dependency": a bulkhead on it adds its wait and time-out, 2 events
// in units of 3. 2 attempts, 100 operations: 2 + 2/3.
func TestEstimateCountsABulkheadOnTheOneDependency(t *testing.T) {
	for _, tc := range []struct{ name, dep, bulkhead string }{
		{"unnamed", ``, `dependency`},
		{"named", `"name": "db", `, `db`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "bulkhead", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
				"dependency": {`+tc.dep+`"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				"strategies": [{"name": "s", "max_attempts": 2,
					"bulkheads": [{"dependency": "`+tc.bulkhead+`", "max_concurrent": 2, "max_waiting": 4, "max_wait": "10ms"}]}]}`)
			checkEstimate(t, sc, 100, 2+2.0/3)
		})
	}
}

// TestEstimateCountsTheCachesSetupOnce: a Zipf law's keys are counted
// once a run, a warm cache's fill in every simulation, beside each
// operation's 2 attempts. 100 operations, 3 runs: a Zipf law over 1,000
// keys (250 events) and a warm cache of 100 of them (100 a simulation).
func TestEstimateCountsTheCachesSetupOnce(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "cache", "runs": 3,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4,
			"cache": {"keys": {"law": "zipf", "exponent": 0.8, "count": 1000}, "capacity": 100, "warm": true}},
		"strategies": [{"name": "s", "max_attempts": 2}]}`)
	cold := *sc
	cold.Dependency.Cache = nil
	// 3 × (100 × 2 × 3 + the set-up) + 250 + the result's numbers.
	want := math.Floor(3*(100*2*3+setupCost(&cold)+100)+250+estimateSize(sc, true)) + 1
	if got := float64(Estimate(sc)); got != want {
		t.Errorf("Estimate = %v, want %v", got, want)
	}
}

// TestEstimateOfASearchAddsItsCandidatesAndItsNumbers: a scenario with a
// search is estimated at its own cost, plus every candidate's on every
// seed, plus the numbers the search's result holds.
func TestEstimateOfASearchAddsItsCandidatesAndItsNumbers(t *testing.T) {
	if searching == nil {
		t.Skip("this build runs no search")
	}
	sc := parseCost(t, `{"version": 1, "name": "search", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		"strategies": [{"name": "C", "max_attempts": 2}],
		"search": {"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 3]}],
			"objectives": [{"metric": "retries", "goal": "min"}]}}`)
	own, candidates, numbers := estimate(sc, true), estimateSearch(sc), int64(estimateSearchSize(sc))
	if candidates <= 0 || numbers <= 0 {
		t.Fatalf("candidates %d, numbers %d: the test needs both", candidates, numbers)
	}
	if got, want := Estimate(sc), own+candidates+numbers; got != want {
		t.Errorf("Estimate = %d, want %d (%d + %d + %d)", got, want, own, candidates, numbers)
	}
}

// TestEstimateKeepsEachCallsNetworkWhenABudgetBoundsNothing: a budget
// that allows exactly as many retries as the level is counted with does
// not bound it, so each plan call keeps its own dependency's network
// rather than the costliest; the estimate is the one without the budget.
// 128 operations of two calls, one to a dependency with a network, are
// 256 invocations of 101 attempts (a constant 100 ms over 10 s); a ratio
// budget without a window allows 256 × ratio + 1 retries, 25,600 (100 an
// invocation) at a ratio of 100 − 1/256, exact in binary.
func TestEstimateKeepsEachCallsNetworkWhenABudgetBoundsNothing(t *testing.T) {
	scenario := func(budget string) *Scenario {
		return parseCost(t, `{"version": 1, "name": "even", "runs": 1,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 12.8, "duration": "10s",
				"plan": [{"calls": [{"dependency": "near"}, {"dependency": "far"}]}]},
			"dependencies": [
				{"name": "near", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				{"name": "far", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4,
					"network": {"request": {"kind": "constant", "mean": "1ms"}, "answer": {"kind": "constant", "mean": "1ms"}}}],
			"strategies": [{"name": "s", "max_attempts": 0, "backoff": {"kind": "constant", "base": "100ms"}`+budget+`}]}`)
	}
	free, even := scenario(""), scenario(`, "budget": {"kind": "ratio", "ratio": 99.99609375}`)
	if n := estimateAttempts(even, &even.Strategies[0].Policy).n; n != 101 {
		t.Fatalf("the level is counted as %v attempts, want 101", n)
	}
	if a, b := Estimate(free), Estimate(even); a != b {
		t.Errorf("estimate %d with a budget that allows every counted retry, %d without it: want the same", b, a)
	}
}
