package engine

import (
	"math"
	"strings"
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

// TestEstimateSpanUpperBound: a run lasts at most until its arrivals end
// (1s here), the phases release what they hold, the slowest operation
// ends and the queue drains, each hand-computed from the base: a queue of
// 4 before 1 worker of 1ms drains in (4/1 + 1) × 1ms = 5ms, an operation
// of 2 attempts that each wait for it lasts 10ms, so the base run ends by
// 1000 + 10 + 5 = 1015ms. Each case changes one thing.
func TestEstimateSpanUpperBound(t *testing.T) {
	const flat = `{"kind": "constant", "mean": "1ms"}`
	for _, tc := range []struct {
		name                    string
		workload, dep, strategy string
		wantMs                  float64
	}{
		{"the base", ``, ``, ``, 1015},
		// A draw of an exponential service is counted as 10 means: a
		// drain of 5 × 10ms, operations of 2 × 50ms.
		{"exponential service", ``, `, "service_time": {"kind": "exponential", "mean": "1ms"}`, ``, 1000 + 100 + 50},
		// A lognormal as twice its p99: 8ms, a drain of 40ms.
		{"lognormal service", ``, `, "service_time": {"kind": "lognormal", "p50": "1ms", "p99": "4ms"}`, ``, 1000 + 80 + 40},
		// The largest latency factor of its phases slows every service.
		{"latency phases", ``, `, "phases": [{"kind": "latency", "factor": 3, "from": "0s", "to": "1s"}, {"kind": "latency", "factor": 2, "from": "1s", "to": "2s"}]`, ``, 1000 + 30 + 15},
		{"load latency", ``, `, "load_latency": {"law": "linear", "slope": 1, "max_factor": 2}`, ``, 1000 + 20 + 10},
		// (4/2 + 1) × 1ms.
		{"two workers", ``, `, "workers": 2`, ``, 1000 + 6 + 3},
		// A normal leg as its mean and six deviations: 7ms there, 2ms
		// back; each attempt 5 + 9ms.
		{"a normal network", ``, `, "network": {"request": {"kind": "normal", "mean": "1ms", "stddev": "1ms"}, "answer": {"kind": "constant", "mean": "2ms"}}`, ``, 1000 + 2*14 + 5 + 9},
		// A lognormal leg as twice its p99: 6ms there, 1ms back.
		{"a lognormal network", ``, `, "network": {"request": {"kind": "lognormal", "p50": "1ms", "p99": "3ms"}, "answer": ` + flat + `}`, ``, 1000 + 2*12 + 5 + 7},
		// Contention reads before it writes: two round trips of 2ms.
		{"contention", ``, `, "contention": {}, "network": {"request": ` + flat + `, "answer": ` + flat + `}`, ``, 1000 + 2*9 + 5 + 4},
		{"an attempt time-out", ``, ``, `, "attempt_timeout": "3ms"`, 1000 + 2*3 + 5},
		{"a deadline", ``, ``, `, "deadline": "7ms"`, 1000 + 7 + 5},
		// 3 attempts and the 2 waits between them.
		{"a backoff", ``, ``, `, "max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"}`, 1000 + 3*5 + 2*10 + 5},
		// Each of the 2 attempts above makes 3 below.
		{"a layer", ``, ``, `, "max_attempts": 2, "layers": [{"max_attempts": 3}]`, 1000 + 2*3*5 + 5},
		// An outage holds a call for its latency.
		{"an outage", ``, `, "phases": [{"kind": "outage", "from": "0s", "to": "2s", "latency": "50ms"}]`, ``, 1000 + 50 + 10 + 5},
		{"errors", ``, `, "phases": [{"kind": "errors", "from": "0s", "to": "2s", "rate": 0.5, "latency": "40ms"}]`, ``, 1000 + 40 + 10 + 5},
		// A freeze holds the calls that arrive in it until it ends, when
		// it starts by the last arrival (at it too).
		{"a freeze over the end", ``, `, "phases": [{"kind": "freeze", "from": "500ms", "to": "1500ms", "status": 503}]`, ``, 1500 + 10 + 5},
		{"a freeze from the end", ``, `, "phases": [{"kind": "freeze", "from": "1s", "to": "1200ms", "status": 503}]`, ``, 1200 + 10 + 5},
		{"a freeze after the end", ``, `, "phases": [{"kind": "freeze", "from": "1100ms", "to": "2s", "status": 503}]`, ``, 1015},
		// A scripted answer takes its latency instead of the queue's.
		{"a script", ``, `, "script": {"then": "last", "answers": [{"status": 503, "latency": "100ms"}, {"status": 200, "latency": "30ms"}]}`, ``, 1000 + 2*100 + 100},
		{"a script of operations", ``, `, "script": {"then": "last", "operations": [[{"status": 503, "latency": "20ms"}], [{"status": 200, "latency": "60ms"}]]}`, ``, 1000 + 2*60 + 60},
		// A fleet's operations count as a strategy's: 5 attempts.
		{"a fleet", `, "arrival": "poisson", "fleets": [{"name": "old", "clients": 1, "rate": 5, "max_attempts": 5}]`, ``, ``, 1000 + 5*5 + 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "span", "runs": 1,
				"workload": {"clients": 1, "rate": 10, "duration": "1s"`+defaulted(tc.workload, `"arrival": "uniform"`)+`},
				"dependency": {"queue_capacity": 4`+defaulted(tc.dep, `"workers": 1`, `"service_time": `+flat)+`},
				"strategies": [{"name": "s"`+defaulted(tc.strategy, `"max_attempts": 2`)+`}]}`)
			if _, hi := estimateSpan(sc); hi != tc.wantMs*1e6 {
				t.Errorf("the span is at most %vms, want %vms", hi/1e6, tc.wantMs)
			}
		})
	}
}

// defaulted returns the fields of a JSON object, extra (each after a
// comma), followed by those of defaults whose keys extra does not set.
func defaulted(extra string, defaults ...string) string {
	for _, d := range defaults {
		if key, _, _ := strings.Cut(d, ":"); !strings.Contains(extra, key+":") {
			extra += ", " + d
		}
	}
	return extra
}

// TestBudgetRetriesEdges: the retries a budget allows, hand-computed where
// TestBudgetRetriesBounds does not reach: a window longer than a second
// (its reserve is MinPerSecond for each of its seconds), a ratio over all
// first attempts without a window, slices without a window (nothing
// bounds them), a token bucket without refunds, and one whose successes
// earn what a retry costs (nothing bounds them either).
func TestBudgetRetriesEdges(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name                 string
		b                    Budget
		firsts, states, span float64
		want                 float64
	}{
		// pieces = ⌈4s/2s⌉+1 = 3, reserve = ⌈3 × 2⌉+1 = 7:
		// 2 × 0.1 × 100 + 3 pieces × 2 states × 7.
		{"ratio over a 2s window", Budget{Kind: BudgetRatio, Ratio: 0.1, Window: Duration(2 * time.Second), MinPerSecond: 3},
			100, 2, float64(4 * time.Second), 2*0.1*100 + 3*2*7},
		// Without slices the ratio is as given, not rounded to what a
		// withdrawal of 1000 slices would buy (1000/3333):
		// 2 × 0.3 × 1000 + 2 pieces × 1 state × 1.
		{"ratio without slices", Budget{Kind: BudgetRatio, Ratio: 0.3, Window: Duration(time.Second)}, 1000, 1, float64(time.Second), 2*0.3*1000 + 2},
		// 0.1 of the first attempts, and the one the ratio rounds up.
		{"ratio without a window", Budget{Kind: BudgetRatio, Ratio: 0.1}, 100, 2, float64(4 * time.Second), 0.1*100 + 1},
		{"slices without a window", Budget{Kind: BudgetRatio, Ratio: 0.1, Slices: 10}, 100, 2, float64(4 * time.Second), inf},
		// spend = 2 states × 10 tokens + 0.5 × 100, paid at 1 − 0.5 a retry.
		{"token bucket", Budget{Kind: BudgetTokenBucket, MaxTokens: 10, TokenRatio: 0.5}, 100, 2, float64(time.Second), (2*10+0.5*100)/(1-0.5) + 1},
		// The cheapest cost, 0.5 for a throttle, is what a success earns.
		{"token bucket refilled as fast", Budget{Kind: BudgetTokenBucket, MaxTokens: 10, TokenRatio: 0.5, ThrottleCost: 0.5}, 100, 2, float64(time.Second), inf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := budgetRetries(&tc.b, tc.firsts, tc.states, tc.span); got != tc.want && math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("budgetRetries = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEstimateSpanCountsThePlan: an operation's steps follow one another,
// each as long as its longest call, and a call waits in the line of a
// bulkhead or a pool that has one. Hand-computed from a base where each
// call lasts 2 attempts × a drain of 5ms = 10ms, and the run 1000ms of
// arrivals, the operation, and a 5ms drain.
func TestEstimateSpanCountsThePlan(t *testing.T) {
	const (
		oneStep  = `[{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]`
		twoSteps = `[{"calls": [{"dependency": "a"}]}, {"calls": [{"dependency": "b"}]}]`
	)
	for _, tc := range []struct {
		name, plan, strategy string
		wantMs               float64
	}{
		{"calls side by side", oneStep, ``, 1000 + 10 + 5},
		{"steps one after the other", twoSteps, ``, 1000 + 2*10 + 5},
		{"three steps", `[{"calls": [{"dependency": "a"}]}, {"calls": [{"dependency": "b"}]}, {"calls": [{"dependency": "a", "name": "a2"}, {"dependency": "b", "name": "b2"}]}]`, ``, 1000 + 3*10 + 5},
		// The fallback's 7ms after b's 10ms.
		{"a fallback", oneStep, `, "fallbacks": [{"call": "b", "latency": "7ms"}]`, 1000 + 17 + 5},
		// A line of 3 for 2 slots, each held 10ms: (3/2 + 1) × 10ms.
		{"a bulkhead's line", oneStep, `, "bulkheads": [{"dependency": "a", "max_concurrent": 2, "max_waiting": 3}]`, 1000 + 25 + 10 + 5},
		{"a bulkhead's line cut by max_wait", oneStep, `, "bulkheads": [{"dependency": "a", "max_concurrent": 2, "max_waiting": 3, "max_wait": "20ms"}]`, 1000 + 20 + 10 + 5},
		{"a bulkhead without a line", oneStep, `, "bulkheads": [{"dependency": "a", "max_concurrent": 2}]`, 1000 + 10 + 5},
		// A line of 4 for 2 pool slots: (4/2 + 1) × 10ms before each step.
		{"a pool's line", oneStep, `, "pool": {"slots": 2, "max_waiting": 4}`, 1000 + 30 + 10 + 5},
		{"a pool's line over two steps", twoSteps, `, "pool": {"slots": 2, "max_waiting": 4}`, 1000 + 2*(30+10) + 5},
		{"a pool's line cut by max_wait", oneStep, `, "pool": {"slots": 2, "max_waiting": 4, "max_wait": "5ms"}`, 1000 + 5 + 10 + 5},
		{"a pool without a line", twoSteps, `, "pool": {"slots": 2}`, 1000 + 2*10 + 5},
		// A slot is held through the bulkhead's wait: (4/2 + 1) × 35ms.
		{"a pool over a bulkhead", oneStep, `, "pool": {"slots": 2, "max_waiting": 4}, "bulkheads": [{"dependency": "a", "max_concurrent": 2, "max_waiting": 3}]`, 1000 + 3*35 + 35 + 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "plan", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s", "plan": `+tc.plan+`},
				"dependencies": [
					{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
					{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}],
				"strategies": [{"name": "s", "max_attempts": 2`+tc.strategy+`}]}`)
			if _, hi := estimateSpan(sc); hi != tc.wantMs*1e6 {
				t.Errorf("the span is at most %vms, want %vms", hi/1e6, tc.wantMs)
			}
		})
	}
}

// TestEstimateSizeCountsEachCallsSeries: with several plan calls a run
// keeps, beside its 9 series, the slots in use and each call's attempts,
// successes and failures: 1 + 3 × 2 series more for 2 calls, of 601
// buckets each. Hand-computed for 1 strategy over a span of at most
// 1000 + 10 + 5 = 1015ms: 3 × 80 metrics, 3 × 3 peaks, 3 × 20 for each
// call, 601 buckets of 9 + 7 series, and fine series of ⌈101.5⌉, ⌈10.15⌉
// and ⌈1.015⌉ windows of two numbers.
func TestEstimateSizeCountsEachCallsSeries(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "calls", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s",
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]},
		"dependencies": [
			{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
			{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4}],
		"strategies": [{"name": "s", "max_attempts": 2}]}`)
	want := int64(3*80 + 3*3 + 2*3*20 + (9+1+3*2)*601 + 2*(102+11+2))
	if got := EstimateSize(sc); got != want {
		t.Errorf("EstimateSize = %d, want %d", got, want)
	}
}

// TestArrivalsEndAndCount: when a workload's last operation starts at the
// latest (at least that long, less ten mean gaps for random arrivals, a
// run lasts) and how many operations it starts, for each way arrivals
// are given: a rate, or a rate per client, with fleets' rates on top; a
// count of operations that ends the arrivals before the duration does;
// a burst of every client at once; closed clients that cycle every think
// time (every millisecond at least).
func TestArrivalsEndAndCount(t *testing.T) {
	for _, tc := range []struct {
		workload string
		loMs     float64
		ops      float64
	}{
		// 10 s less 10 gaps of 1/10 s.
		{`"arrival": "poisson", "rate": 10, "duration": "10s"`, 10000 - 1000, 100},
		// 4 clients × 5 a second: gaps of 1/20 s.
		{`"arrival": "poisson", "rate_per_client": 5, "duration": "10s"`, 10000 - 500, 200},
		{`"arrival": "poisson", "rate": 10, "duration": "10s", "fleets": [{"name": "f", "clients": 1, "rate": 10, "max_attempts": 1}]`, 10000 - 500, 200},
		// A fleet of 2 clients × 5 a second.
		{`"arrival": "poisson", "rate": 10, "duration": "10s", "fleets": [{"name": "f", "clients": 2, "rate_per_client": 5, "max_attempts": 1}]`, 10000 - 500, 200},
		// Ten gaps are longer than the run: at least 0.
		{`"arrival": "poisson", "rate": 10, "duration": "500ms"`, 0, 5},
		// 5 operations at 10 a second end at 500ms, 20 would end past the
		// duration; without a duration, they end the arrivals.
		{`"arrival": "uniform", "rate": 10, "duration": "1s", "operations": 5`, 500, 5},
		{`"arrival": "uniform", "rate": 10, "duration": "1s", "operations": 20`, 1000, 10},
		{`"arrival": "uniform", "rate": 10, "operations": 5`, 500, 5},
		// With load phases the rate changes: the duration bounds them
		// (12 at 10 a second would end at 1200ms), 10 gaps before it.
		{`"arrival": "poisson", "rate": 10, "duration": "2s", "operations": 12, "load": [{"kind": "step", "from": "0s", "to": "1s", "factor": 0.5}]`, 2000 - 1000, 12},
		{`"arrival": "burst", "burst_at": "2s"`, 2000, 4},
		// 4 clients, each cycling every 100ms for 1s.
		{`"arrival": "closed", "think_time": "100ms", "duration": "1s"`, 1000, 40},
	} {
		t.Run(tc.workload, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "arrivals", "runs": 1,
				"workload": {"clients": 4, `+tc.workload+`},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				"strategies": [{"name": "s", "max_attempts": 1}]}`)
			if lo, _ := estimateSpan(sc); lo != tc.loMs*1e6 {
				t.Errorf("the span is at least %vms, want %vms", lo/1e6, tc.loMs)
			}
			if got := estimateOps(sc); got != tc.ops {
				t.Errorf("operations = %v, want %v", got, tc.ops)
			}
		})
	}
}

// TestUnlimitedAttemptsStepIsTheShortestRoundTrip: without a backoff an
// unlimited policy is counted as retrying every shortest round trip, each
// leg as short as the estimate counts it: a normal one's mean less three
// deviations (not below 0), a lognormal one's three deviations below its
// median. A deadline of 900ms holds 1 + ⌊900ms / step⌋ attempts.
func TestUnlimitedAttemptsStepIsTheShortestRoundTrip(t *testing.T) {
	const back = `{"kind": "constant", "mean": "5ms"}`
	// p50 × (p99/p50)^(−3/z99), z99 the standard normal's 99th percentile.
	lognormal := 8e6 * math.Pow(4, -3/2.3263478740408408)
	for _, tc := range []struct {
		name, request string
		step          float64 // ns
	}{
		{"a normal leg", `{"kind": "normal", "mean": "10ms", "stddev": "2ms"}`, 4e6 + 5e6},
		{"a normal leg past 0", `{"kind": "normal", "mean": "10ms", "stddev": "5ms"}`, 0 + 5e6},
		{"a lognormal leg", `{"kind": "lognormal", "p50": "8ms", "p99": "32ms"}`, lognormal + 5e6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "floor", "runs": 1,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4,
					"network": {"request": `+tc.request+`, "answer": `+back+`}},
				"strategies": [{"name": "s", "max_attempts": 2}]}`)
			c := estimateAttempts(sc, &Policy{Deadline: Duration(900 * time.Millisecond)})
			if math.Abs(float64(c.step)-tc.step) > 1 {
				t.Errorf("step = %v, want %v", c.step, time.Duration(tc.step))
			}
			if want := 1 + math.Floor(900e6/tc.step); math.Abs(c.n-want) > 1 {
				t.Errorf("attempts = %v, want %v", c.n, want)
			}
		})
	}
}

// TestResultSizeCountsEveryNumber: Size counts each number a result holds:
// its seeds and each phase's two ends, and for each strategy (a sweep's
// too) its 80 metrics, two for each spread, three for each peak, one a
// level's count, four for each breaker transition and five for each
// scaling event, and every number of its series. The lengths differ, so
// that a count left out or counted twice shows.
func TestResultSizeCountsEveryNumber(t *testing.T) {
	i32 := func(n int) []int32 { return make([]int32, n) }
	st := StrategyResult{
		Spread:             map[string]MinMax{"a": {}, "b": {}, "c": {}}, // 6
		Peaks:              make([]Peak, 2),                              // 6
		LayerAttempts:      make([]float64, 5),
		LayerRetries:       make([]float64, 7),
		LayerRetriesDenied: make([]float64, 11),      // 23
		Transitions:        make([]Transition, 13),   // 52
		Scaling:            make([]ScalingEvent, 17), // 85
		Series: &Series{ // 1 + 2 + … + 9 = 45
			Attempts: i32(1), Retries: i32(2), Successes: i32(3), Failures: i32(4), Rejections: i32(5),
			FastFailed: i32(6), QueueLength: i32(7), InFlight: i32(8), BreakerState: make([]int8, 9),
			Workers: []WorkerSeries{{Serving: i32(10), Target: i32(11)}, {Serving: i32(12), Target: i32(13)}}, // 46
			Fine:    []FineSeries{{Attempts: i32(14), Retries: i32(15)}},                                      // 29
		},
	}
	r := &Result{
		Seeds:      make([]int64, 3),
		Phases:     make([]PhaseSpan, 2),
		Strategies: []StrategyResult{st},
		Sweep:      []SweepPoint{{Strategies: []StrategyResult{{Spread: map[string]MinMax{"a": {}}}}}},
	}
	want := int64(3 + 2*2 + (80 + 6 + 6 + 23 + 52 + 85 + 45 + 46 + 29) + (80 + 2))
	if got := r.Size(); got != want {
		t.Errorf("Size = %d, want %d", got, want)
	}
}

// TestEstimateBinsAtTheModelsWidth: a simulation counts in bins as wide as
// the greatest common divisor of 10ms, its peak resolutions and its
// series bucket, never below 1ms, over a span of at most 1015ms here, one
// more bin for the span's end, at most maxBins.
func TestEstimateBinsAtTheModelsWidth(t *testing.T) {
	for _, tc := range []struct {
		report, duration string
		base             int64
		bins             float64
	}{
		{``, "1s", 10e6, 102 + 1},                            // ⌈1015 / 10⌉ + 1
		{`"peak_resolutions": ["25ms"]`, "1s", 5e6, 203 + 1}, // gcd(10, 25) = 5
		{`"series_bucket": "4ms"`, "1s", 2e6, 508 + 1},       // gcd(10, 4) = 2: ⌈507.5⌉ + 1
		{`"peak_resolutions": ["3ms"]`, "1s", 1e6, 1015 + 1}, // gcd(10, 3) = 1
		{`"peak_resolutions": ["1s"]`, "1s", 10e6, 102 + 1},  // a multiple of 10 changes nothing
		{``, "1000s", 10e6, maxBins},                         // 100,002 bins
	} {
		t.Run(tc.report+tc.duration, func(t *testing.T) {
			report := ``
			if tc.report != `` {
				report = `, "report": {` + tc.report + `}`
			}
			sc := parseCost(t, `{"version": 1, "name": "bins", "runs": 1`+report+`,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "`+tc.duration+`"},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
				"strategies": [{"name": "s", "max_attempts": 2}]}`)
			if got := modelBase(sc); got != tc.base {
				t.Errorf("modelBase = %v, want %v", got, tc.base)
			}
			if got := estimateBins(sc); got != tc.bins {
				t.Errorf("estimateBins = %v, want %v", got, tc.bins)
			}
		})
	}
}

// TestEstimateSizeTerms: the numbers EstimateSize counts, hand-computed
// from a base of one strategy whose run lasts at most 1015ms: 3 × 80
// metrics, 3 × 3 peaks, 601 buckets of 9 series, and fine series of 2 ×
// (⌈101.5⌉ + ⌈10.15⌉ + ⌈1.015⌉) = 230 numbers at 10ms, 100ms and 1s.
func TestEstimateSizeTerms(t *testing.T) {
	const base = 3*80 + 3*3 + 9*601 + 230
	breaker := `"breaker": {"kind": "consecutive", "failures": 10, "break": "30s"}`
	for _, tc := range []struct {
		name, top, dep, strategies string
		want                       int64
	}{
		{"the base", ``, ``, ``, base},
		// Up to 1,000 transitions of 4 numbers.
		{"a breaker", ``, ``, `, ` + breaker, base + 4*1000},
		{"a layer's breaker", ``, ``, `, "layers": [{"max_attempts": 1, ` + breaker + `}]`, base + 4*1000},
		// Each strategy holds as many; the second's 3 attempts lengthen
		// the span to 1020ms, which changes no fine series' count.
		{"two strategies", ``, ``, `}, {"name": "t", "max_attempts": 3`, 2 * base},
		// Buckets of at least 100ms: ⌈1015/100⌉ = 11 of them.
		{"a series bucket", `, "report": {"series_bucket": "100ms"}`, ``, ``, base - 9*601 + 9*11},
		// A fourth peak resolution, and its fine series: bins of 20ms
		// divide it, 2 × ⌈1015/20⌉ numbers.
		{"a peak resolution", `, "report": {"peak_resolutions": ["20ms"]}`, ``, ``, base + 3 + 2*51},
		{"a peak resolution already there", `, "report": {"peak_resolutions": ["100ms"]}`, ``, ``, base},
		// Up to 1,000 scaling events of 5 numbers, and the serving and
		// target workers in each of the 601 buckets.
		{"an autoscaler", ``, `, "autoscale": {"metric": "utilization", "target": 0.7, "period": "15s", "min": 1, "max": 4}`, ``, base + 5*1000 + 2*601},
		// Each value's metrics and peaks, without series.
		{"a sweep", `, "sweep": {"path": "strategies[0].max_attempts", "values": [1, 3, 5]}`, ``, ``, 3 * (3*80 + 3*3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := parseCost(t, `{"version": 1, "name": "size", "runs": 1`+tc.top+`,
				"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
				"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4`+tc.dep+`},
				"strategies": [{"name": "s", "max_attempts": 2`+tc.strategies+`}]}`)
			if got := EstimateSize(sc); got != tc.want {
				t.Errorf("EstimateSize = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestEstimateSizeCountsThePhasesOfSeveralDependencies: with several
// dependencies the result holds each phase's start and end once; the
// phases of a single one fit in the margin.
func TestEstimateSizeCountsThePhasesOfSeveralDependencies(t *testing.T) {
	const outage = `{"kind": "outage", "from": "0s", "to": "100ms"}`
	size := func(a, b string) int64 {
		return EstimateSize(parseCost(t, `{"version": 1, "name": "phases", "runs": 1,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s", "plan": [{"calls": [{"dependency": "a"}]}, {"calls": [{"dependency": "b"}]}]},
			"dependencies": [
				{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4, "phases": [`+a+`]},
				{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4, "phases": [`+b+`]}],
			"strategies": [{"name": "s", "max_attempts": 2}, {"name": "t", "max_attempts": 2}]}`))
	}
	// 3 phases of 2 numbers, once for both strategies.
	if got, want := size(outage+`, {"kind": "outage", "from": "200ms", "to": "300ms"}`, outage)-size(``, ``), int64(2*3); got != want {
		t.Errorf("the phases add %d numbers, want %d", got, want)
	}
	one := func(phases string) int64 {
		return EstimateSize(parseCost(t, `{"version": 1, "name": "phases", "runs": 1,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4, "phases": [`+phases+`]},
			"strategies": [{"name": "s", "max_attempts": 2}]}`))
	}
	if got := one(outage) - one(``); got != 0 {
		t.Errorf("the phases of one dependency add %d numbers, want 0", got)
	}
	listed := func(phases string) int64 {
		return EstimateSize(parseCost(t, `{"version": 1, "name": "phases", "runs": 1,
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
			"dependencies": [{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4, "phases": [`+phases+`]}],
			"strategies": [{"name": "s", "max_attempts": 2}]}`))
	}
	if got := listed(outage) - listed(``); got != 0 {
		t.Errorf("the phases of the one dependency listed add %d numbers, want 0", got)
	}
}

// TestUnlimitedAttemptsWithoutAStepAreUnbounded: with neither a backoff
// nor a round trip nothing bounds unlimited attempts, and they are counted
// as infinite, even when the time they have is none (a burst at 0).
func TestUnlimitedAttemptsWithoutAStepAreUnbounded(t *testing.T) {
	for _, workload := range []string{
		`"arrival": "uniform", "rate": 10, "duration": "1s"`,
		`"arrival": "burst", "burst_at": "0s"`,
	} {
		sc := parseCost(t, `{"version": 1, "name": "unbounded", "runs": 1,
			"workload": {"clients": 1, `+workload+`},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
			"strategies": [{"name": "s", "max_attempts": 0}]}`)
		if c := estimateAttempts(sc, &sc.Strategies[0].Policy); !math.IsInf(c.n, 1) {
			t.Errorf("%s: attempts = %v, want +Inf", workload, c.n)
		}
	}
}

// TestEstimateSizeKeepsTheFineSeriesOfALongRun: a run longer than
// maxBins bins of 10ms (655.36s) coarsens its bins, by doubling, as far
// as each resolution allows: to 20ms for 100ms (1310.72s) and 40ms for 1s
// (2621.44s), so a run of at most 1000.015s keeps both fine series, and
// not the 10ms one (20,000 windows are 200s, less than its 1000s of
// arrivals): 601 buckets of 9 series, and 2 × (⌈10000.15⌉ + ⌈1000.015⌉)
// fine numbers.
func TestEstimateSizeKeepsTheFineSeriesOfALongRun(t *testing.T) {
	sc := parseCost(t, `{"version": 1, "name": "long", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1000s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		"strategies": [{"name": "s", "max_attempts": 2}]}`)
	want := int64(3*80 + 3*3 + 9*601 + 2*(10001+1001))
	if got := EstimateSize(sc); got != want {
		t.Errorf("EstimateSize = %d, want %d", got, want)
	}
}
