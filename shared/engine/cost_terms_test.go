package engine

import (
	"math"
	"strings"
	"testing"
	"time"
)

// parseCost parses js for a test of the estimates' terms.
func parseCost(t *testing.T, js string) *Scenario {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestSetupCountsEveryFleetInstanceForEachDependency: a fleet's instances
// have a budget and a breaker for each dependency, as a strategy's do, so
// each instance a fleet adds costs 2 events of setup for each of the
// scenario's dependencies, and a pool's slots count as one more budget for
// each instance of the strategy.
func TestSetupCountsEveryFleetInstanceForEachDependency(t *testing.T) {
	scenario := func(fleetInstances, strategy string) string {
		return `{"version": 1, "name": "setup", "runs": 1,
			"workload": {"clients": 4, "arrival": "poisson", "rate": 10, "duration": "1s",
				"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}, {"dependency": "c"}]}],
				"fleets": [{"name": "old", "clients": 4, "rate": 5, "max_attempts": 2` + fleetInstances + `}]},
			"dependencies": [
				{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				{"name": "c", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}],
			"strategies": [{"name": "s", "max_attempts": 2` + strategy + `}]}`
	}
	base := setupCost(parseCost(t, scenario(``, ``)))
	for _, tc := range []struct {
		name                   string
		fleetInstances, policy string
		want                   float64 // setup beyond base
	}{
		{"a fleet of 5 instances, 3 dependencies", `, "instances": 5`, ``, 2 * (5 - 1) * 3},
		// The strategy's instances are 3 dependencies × 4 instances, and a
		// pool one more budget for each of its 4 instances.
		{"a pool over 4 instances", ``, `, "instances": 4, "pool": {"slots": 2}`, 2 * (4*3 + 4 - 3)},
		{"no pool over 4 instances", ``, `, "instances": 4`, 2 * (4*3 - 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := setupCost(parseCost(t, scenario(tc.fleetInstances, tc.policy))) - base; got != tc.want {
				t.Errorf("setup grows by %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEstimateSizeCountsEachCallsMetrics: with more than one plan call,
// each call's metrics (20 numbers) are kept with their minimum and maximum
// over runs, for every strategy: the result's 80 metrics and the 3
// resolutions' peaks, each three times, plus 3 × 20 a call.
func TestEstimateSizeCountsEachCallsMetrics(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "calls", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s",
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]},
		"dependencies": [
			{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
			{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}],
		"strategies": [{"name": "s", "max_attempts": 2}, {"name": "t", "max_attempts": 3}]}`)
	if got, want := estimateSize(sc, false), 2*(3*80+3*3+2*3*20.0); got != want {
		t.Errorf("estimateSize without series = %v, want %v", got, want)
	}
}

// TestResultSizeCountsThreeNumbersAPeak: a peak holds its resolution, its
// attempts and its retries; Size counts each of them.
func TestResultSizeCountsThreeNumbersAPeak(t *testing.T) {
	for _, peaks := range []int{1, 2, 4} {
		r := &Result{Strategies: []StrategyResult{{Peaks: make([]Peak, peaks)}}}
		if got, want := r.Size(), int64(80+3*peaks); got != want {
			t.Errorf("with %d peaks Size = %d, want %d", peaks, got, want)
		}
	}
}

// TestBudgetRetriesBounds: the retries a budget allows, as the estimate
// bounds them, hand-computed for a windowed ratio budget (the ratio of
// first attempts twice, a window's reach before and after, and the
// minimum per second of each piece of the span) and for a token bucket
// with refunds (each first attempt may be refunded a retry at the costliest
// cost, and what is spent is paid back at the cost less the gain).
func TestBudgetRetriesBounds(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		b                    Budget
		firsts, states, span float64
		want                 float64
	}{
		// pieces = ⌈1s/1s⌉+1 = 2, reserve = ⌈2 × 1⌉+1 = 3:
		// 2 × 0.1 × 1000 + 2 × 1 × 3.
		{"ratio over a window", Budget{Kind: BudgetRatio, Ratio: 0.1, Window: Duration(time.Second), MinPerSecond: 2},
			1000, 1, float64(time.Second), 2*0.1*1000 + 2*1*3},
		{"ratio over a window, 4 states", Budget{Kind: BudgetRatio, Ratio: 0.5, Window: Duration(time.Second)},
			10, 4, float64(3 * time.Second), 2*0.5*10 + 4*4*1},
		// cost = min(1, 2) = 1, most = 2, spend = 1 × 10 + 0.5 × 100.
		{"token bucket with refunds", Budget{Kind: BudgetTokenBucket, MaxTokens: 10, TokenRatio: 0.5, TimeoutCost: 2, Refund: true},
			100, 1, float64(time.Second), 100 + (10+0.5*100+2*100)/(1-0.5)},
		// With slices a withdrawal of 1000/⌊1000/0.3⌋ = 1000/3333 buys a
		// retry: the ratio a little above 0.3. pieces = 2, reserve = 1.
		{"sliced ratio over a window", Budget{Kind: BudgetRatio, Ratio: 0.3, Window: Duration(time.Second), Slices: 10},
			1000, 1, float64(time.Second), 2*(1000.0/3333)*1000 + 2*1*1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := budgetRetries(&tc.b, tc.firsts, tc.states, tc.span); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("budgetRetries = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUnlimitedAttemptsStepIsTheRoundTrip: an unlimited policy without a
// backoff is counted as retrying once every round trip of the network,
// its request's leg and its answer's, whatever the deadline.
func TestUnlimitedAttemptsStepIsTheRoundTrip(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "rtt", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4,
			"network": {"request": {"kind": "constant", "mean": "10ms"}, "answer": {"kind": "constant", "mean": "5ms"}}},
		"strategies": [{"name": "s", "max_attempts": 0, "deadline": "3s"}]}`)
	c := estimateAttempts(sc, &sc.Strategies[0].Policy)
	if c.step != 15*time.Millisecond {
		t.Errorf("step = %v, want 15ms (10ms there, 5ms back)", c.step)
	}
	// 3s of 15ms steps: the first attempt and 200 retries.
	if c.n != 201 {
		t.Errorf("attempts = %v, want 201", c.n)
	}
}

// TestCostNamesOnlyUnlimitedPoliciesCountedPastTheCap: a policy without
// max_attempts is counted as MaxAttempts (100) attempts an operation, or
// as many as fit in its deadline if more; the cost's message names it as
// what to reduce only when its deadline fits more than those 100. Steps
// of 15 ms (the round trip) fit 1 + ⌊deadline / 15ms⌋ attempts.
func TestCostNamesOnlyUnlimitedPoliciesCountedPastTheCap(t *testing.T) {
	for _, tc := range []struct {
		deadline string
		want     string // in the one text of Unlimited; "": none
	}{
		{"100ms", ""},  // 7 attempts fit: counted as 100
		{"1485ms", ""}, // exactly 100 fit
		{"1500ms", "counted as up to 101 attempts an operation"},
		{"3s", "counted as up to 201 attempts an operation"},
	} {
		t.Run(tc.deadline, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "cap", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4,
					"network": {"request": {"kind": "constant", "mean": "10ms"}, "answer": {"kind": "constant", "mean": "5ms"}}},
				"strategies": [{"name": "s", "max_attempts": 0, "deadline": "`+tc.deadline+`"}]}`)
			got := costDetail(sc).Unlimited
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("Unlimited = %q, want none", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("Unlimited = %q, want one saying %q", got, tc.want)
			}
		})
	}
}

// TestEstimateSizeKeepsScalingEventsOnce: the scaling events of a run are
// kept once, at most 1,000 of 5 numbers each, however many dependencies
// scale; without series nothing else grows with them.
func TestEstimateSizeKeepsScalingEventsOnce(t *testing.T) {
	const scale = `, "autoscale": {"metric": "utilization", "target": 0.7, "period": "15s", "min": 1, "max": 4}`
	size := func(a, b string) float64 {
		sc := parseCost(t, `{"version": 1, "name": "scaled", "runs": 1,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s",
				"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]},
			"dependencies": [
				{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4`+a+`},
				{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4`+b+`}],
			"strategies": [{"name": "s", "max_attempts": 2}, {"name": "t", "max_attempts": 3}]}`)
		return estimateSize(sc, false)
	}
	base := size("", "")
	for _, tc := range []struct {
		name string
		a, b string
	}{{"one scales", scale, ""}, {"both scale", scale, scale}} {
		if got, want := size(tc.a, tc.b)-base, 2*5*1000.0; got != want {
			t.Errorf("%s: the size grows by %v, want %v (5 × 1,000 for each of 2 strategies)", tc.name, got, want)
		}
	}
}

// TestResultSizeCountsSeedsAndPhases: a result holds each seed, and each
// phase's start and end.
func TestResultSizeCountsSeedsAndPhases(t *testing.T) {
	r := &Result{Seeds: make([]int64, 3), Phases: make([]PhaseSpan, 2)}
	if got, want := r.Size(), int64(3+2*2); got != want {
		t.Errorf("3 seeds and 2 phases: Size = %d, want %d", got, want)
	}
}
