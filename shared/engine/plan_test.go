package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/shared/internal/golden"
)

// decodePlan reads a scenario of several dependencies with encoding/json,
// neither strictly nor validating it (these fields' validation and
// strict decoding are tested elsewhere): the tests write valid ones.
func decodePlan(t *testing.T, js string) *Scenario {
	t.Helper()
	var sc Scenario
	if err := json.Unmarshal([]byte(js), &sc); err != nil {
		t.Fatal(err)
	}
	return &sc
}

// runPlan runs sc as Run does, without Validate, Estimate and Warnings.
func runPlan(t *testing.T, sc *Scenario) *Result {
	t.Helper()
	m := compile(sc)
	strats, events, err := runModels(context.Background(), []*model{m}, Options{MaxEvents: 50_000_000}, &progress{}, true)
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Scenario: sc.Name, EngineVersion: EngineVersion, Events: events, Phases: phaseSpans(sc), Strategies: strats[0], Warnings: []string{}}
	for _, s := range m.seeds {
		res.Seeds = append(res.Seeds, int64(s))
	}
	return res
}

// simPlan runs strategy i of sc on its first seed and returns the finished
// simulation, with observe set on it first when not nil.
func simPlan(t *testing.T, sc *Scenario, i int, observe func(s *sim, what string, id int32)) *sim {
	t.Helper()
	m := compile(sc)
	s := newSim(context.Background(), m, &m.strategies[i], m.seeds[0], 50_000_000)
	s.observe = observe
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	return s
}

func callNamed(t *testing.T, sr *StrategyResult, name string) CallMetrics {
	t.Helper()
	for _, c := range sr.Calls {
		if c.Name == name {
			return c.Metrics
		}
	}
	t.Fatalf("%s: no call %q in %+v", sr.Name, name, sr.Calls)
	return CallMetrics{}
}

func TestPlanDecodes(t *testing.T) {
	sc := decodePlan(t, `{"version": 1, "name": "d",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 1,
			"plan": [{"calls": [{"dependency": "a", "class": "sheddable"}, {"dependency": "b", "share": 0.5}]}]},
		"dependencies": [
			{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1,
				"shedding": {"measure": "load", "thresholds": {"sheddable": 3}, "status": 429}},
			{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1}],
		"strategies": [{"name": "s", "max_attempts": 1, "pool": {"slots": 2}, "bulkheads": [{"dependency": "b", "max_concurrent": 1}],
			"fallbacks": [{"call": "a"}, {"call": "b", "latency": "2ms"}],
			"breaker": {"kind": "consecutive", "failures": 2, "break": "1s", "scope": "client"}}]}`)
	m := compile(sc)
	if len(m.deps) != 2 || len(m.calls) != 2 || len(m.steps) != 2 {
		t.Fatalf("deps %d, calls %d, steps %v", len(m.deps), len(m.calls), m.steps)
	}
	a, b := m.deps[0], m.calls[1]
	if !a.shedding || !a.shedLoad || a.shedStatus != 429 || a.shedAt != [numClasses]int{-1, -1, -1, 3} {
		t.Errorf("shedding compiled as %v %v %v %v", a.shedding, a.shedLoad, a.shedStatus, a.shedAt)
	}
	if b.dep != 1 || b.share != 0.5 || m.calls[0].share != 1 || b.name != "b" || m.calls[0].class != 3 {
		t.Errorf("plan compiled as %+v", m.calls)
	}
	st := m.strategies[0]
	if !slices.Equal(st.fallback, []int64{0, 2e6}) {
		t.Errorf("fallbacks compiled as %v; want [0 2000000]", st.fallback)
	}
	if st.pool.slots != 2 || st.bulkheads[0].slots != 0 || st.bulkheads[1].slots != 1 || st.levels[0].breakerPerDep {
		t.Errorf("strategy compiled as %+v", st)
	}
}

// TestBulkheadCapsConcurrency: the calls to the dependency behind a
// bulkhead never exceed max_concurrent at once, and reach it; the other
// dependency, without one, takes more.
func TestBulkheadCapsConcurrency(t *testing.T) {
	sc := decodePlan(t, `{"version": 1, "name": "bulkhead", "seed": 3,
		"workload": {"clients": 50, "arrival": "poisson", "rate": 400, "duration": "5s",
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]},
		"dependencies": [
			{"name": "a", "workers": 50, "service_time": {"kind": "exponential", "mean": "20ms"}, "queue_capacity": 100},
			{"name": "b", "workers": 50, "service_time": {"kind": "exponential", "mean": "20ms"}, "queue_capacity": 100, "error_rate": 0.2}],
		"strategies": [{"name": "s", "max_attempts": 3, "backoff": {"kind": "constant", "base": "5ms"},
			"bulkheads": [{"dependency": "b", "max_concurrent": 4, "max_waiting": 10}]}]}`)
	var most [2]int
	s := simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what != "call" {
			return
		}
		c := &s.calls[id]
		ds := &s.deps[c.dep]
		n := ds.busy + ds.queue.len() + 1 // this call's request, about to be admitted
		most[c.dep] = max(most[c.dep], n)
		if b := &s.bulks[c.dep]; c.dep == 1 && (b.used > 4 || n > 4) {
			t.Fatalf("at %d: %d slots used, %d calls at b", s.now, b.used, n)
		}
	})
	if most[1] != 4 {
		t.Errorf("the most calls at b at once: %d, want the bulkhead's 4", most[1])
	}
	if most[0] <= 4 {
		t.Errorf("the most calls at a at once: %d, want more than 4 (no bulkhead)", most[0])
	}
	x := s.output(false).metrics
	if x.BulkheadRejected == 0 || x.BulkheadRejected != float64(s.c.limited[rejBulkheadFull]+s.c.limited[rejBulkheadTimeout]) {
		t.Errorf("bulkhead_rejected %v, by reason %v: want some refusals, all counted", x.BulkheadRejected, s.c.limited)
	}
	if x.GaveUpBulkhead != x.BulkheadRejected || x.PoolRejected != 0 {
		t.Errorf("gave_up_bulkhead %v, bulkhead_rejected %v, pool_rejected %v", x.GaveUpBulkhead, x.BulkheadRejected, x.PoolRejected)
	}
}

// poolScenario is a burst of 10 operations of one call of 100 ms through
// a pool of 2 slots, at most maxWaiting waiting, each at most maxWait.
func poolScenario(t *testing.T, maxWaiting int, maxWait string) *Scenario {
	return decodePlan(t, `{"version": 1, "name": "pool",
		"workload": {"clients": 10, "arrival": "burst"},
		"dependency": {"workers": 100, "service_time": {"kind": "constant", "mean": "100ms"}, "queue_capacity": 100},
		"strategies": [{"name": "s", "max_attempts": 1,
			"pool": {"slots": 2, "max_waiting": `+itoa(maxWaiting)+`, "max_wait": "`+maxWait+`"}}]}`)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestPoolWaitersTimeOut: waiters are served in order as slots free up,
// time out after max_wait, and are refused at once when the line is full;
// each refusal is counted by its reason.
func TestPoolWaitersTimeOut(t *testing.T) {
	for _, tc := range []struct {
		maxWaiting int
		maxWait    string
		ok         float64
		full, late int64
		maxLatency float64
	}{
		// 2 served at once, 2 more when they end at 100 ms; the other 6
		// give up at 150 ms.
		{100, "150ms", 4, 0, 6, 200},
		// 2 served, 3 wait and give up at 50 ms, 5 refused at once.
		{3, "50ms", 2, 5, 3, 100},
		// No limit on the wait: all served, two at a time.
		{100, "0s", 10, 0, 0, 500},
	} {
		s := simPlan(t, poolScenario(t, tc.maxWaiting, tc.maxWait), 0, nil)
		out := s.output(true)
		x := out.metrics
		if x.Succeeded != tc.ok || s.c.limited[rejPoolFull] != tc.full || s.c.limited[rejPoolTimeout] != tc.late {
			t.Errorf("%d waiting, %s: succeeded %v, refused full %d, timed out %d; want %v, %d, %d",
				tc.maxWaiting, tc.maxWait, x.Succeeded, s.c.limited[rejPoolFull], s.c.limited[rejPoolTimeout], tc.ok, tc.full, tc.late)
		}
		if x.PoolRejected != float64(tc.full+tc.late) || x.GaveUpPool != x.PoolRejected || x.Failed != x.PoolRejected {
			t.Errorf("%d waiting, %s: pool_rejected %v, gave_up_pool %v, failed %v", tc.maxWaiting, tc.maxWait, x.PoolRejected, x.GaveUpPool, x.Failed)
		}
		if x.LatencyMaxms != tc.maxLatency {
			t.Errorf("%d waiting, %s: latency max %v ms, want %v", tc.maxWaiting, tc.maxWait, x.LatencyMaxms, tc.maxLatency)
		}
		if s.poolUsed != 0 || s.pools[0].used != 0 || s.pools[0].live != 0 {
			t.Errorf("%d waiting, %s: after the run %d slots used, %d waiting", tc.maxWaiting, tc.maxWait, s.pools[0].used, s.pools[0].live)
		}
	}
	res := runPlan(t, poolScenario(t, 100, "150ms"))
	if in := res.Strategies[0].Series.PoolInUse; len(in) == 0 || in[0] != 2 {
		t.Errorf("pool_in_use %v: want 2 in the first bucket", in)
	}
}

// breakerScopeScenario: a is down, b is healthy; each operation calls a
// (with a fallback) and b in parallel, through a breaker shared by both ("client")
// or one per dependency, that opens when half the outcomes fail.
const breakerScopeScenario = `{"version": 1, "name": "scope",
	"workload": {"clients": 10, "arrival": "uniform", "rate": 100, "duration": "2s",
		"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]},
	"dependencies": [
		{"name": "a", "workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
			"phases": [{"kind": "outage", "from": "0s", "to": "10s"}]},
		{"name": "b", "workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10}],
	"strategies": [
		{"name": "shared", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 6, "window": "1s", "break": "10s", "scope": "client"}, "fallbacks": [{"call": "a"}]},
		{"name": "per-dependency", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 6, "window": "1s", "break": "10s"}, "fallbacks": [{"call": "a"}]}]}`

// TestBreakerScope: a breaker shared by the client opens on a's failures
// and then fails b's calls fast; breakers per dependency leave b alone.
func TestBreakerScope(t *testing.T) {
	res := runPlan(t, decodePlan(t, breakerScopeScenario))
	shared, perDep := &res.Strategies[0], &res.Strategies[1]
	if b := callNamed(t, shared, "b"); b.FastFailed == 0 || b.SuccessRate > 0.1 || b.DependencyCalls > 6 {
		t.Errorf("shared breaker: b's calls %+v; want them failed fast once a opened it", b)
	}
	if b := callNamed(t, perDep, "b"); b.FastFailed != 0 || b.SuccessRate != 1 {
		t.Errorf("breaker per dependency: b's calls %+v; want all to succeed", b)
	}
	if a := callNamed(t, perDep, "a"); a.FastFailed == 0 || a.DependencyCalls != 6 {
		t.Errorf("breaker per dependency: a's calls %+v; want 6 to reach it and the rest failed fast", a)
	}
	if x := perDep.Metrics; x.Degraded != x.Operations || x.Failed != 0 || x.DegradedRate != 1 {
		t.Errorf("per dependency: %v operations, %v degraded, %v failed; want all degraded", x.Operations, x.Degraded, x.Failed)
	}
	if x := shared.Metrics; x.GaveUpBreaker == 0 || x.Failed != x.GaveUpBreaker {
		t.Errorf("shared: failed %v, gave_up_breaker %v", x.Failed, x.GaveUpBreaker)
	}
	var deps []string
	for _, tr := range perDep.Transitions {
		deps = append(deps, tr.Dependency)
	}
	if len(deps) != 1 || deps[0] != "a" || len(shared.Transitions) != 1 || shared.Transitions[0].Dependency != "" {
		t.Errorf("transitions: per dependency %+v, shared %+v", perDep.Transitions, shared.Transitions)
	}
}

// TestFallback: a call that fails is answered by its fallback after its
// latency, and the operation ends degraded, not failed.
func TestFallback(t *testing.T) {
	const js = `{"version": 1, "name": "fallback",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 20,
			"plan": [{"calls": [{"dependency": "a"}]}, {"calls": [{"dependency": "b"}]}]},
		"dependencies": [
			{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 10},
			{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 10,
				"phases": [{"kind": "outage", "from": "0s", "to": "1s", "latency": "3ms"}]}],
		"strategies": [{"name": "s", "max_attempts": 1 FALLBACK}]}`
	with := runPlan(t, decodePlan(t, replace(js, "FALLBACK", `, "fallbacks": [{"call": "b", "latency": "7ms"}]`))).Strategies[0]
	without := runPlan(t, decodePlan(t, replace(js, "FALLBACK", ""))).Strategies[0]
	// The operations in the outage: 5 ms at a, 3 ms at b, 7 ms of fallback.
	if x := with.Metrics; x.Degraded != 10 || x.Succeeded != 10 || x.Failed != 0 || x.LatencyMaxms != 15 || x.LatencyP50ms != 10 {
		t.Errorf("with a fallback: degraded %v, succeeded %v, failed %v, latency p50 %v max %v; want 10, 10, 0, 10, 15",
			x.Degraded, x.Succeeded, x.Failed, x.LatencyP50ms, x.LatencyMaxms)
	}
	if b := callNamed(t, &with, "b"); b.FellBack != 10 || b.Failed != 0 || b.Succeeded != 10 {
		t.Errorf("with a fallback, b: %+v", b)
	}
	if x := without.Metrics; x.Degraded != 0 || x.Failed != 10 || x.LatencyMaxms != 10 || x.GaveUpAttempts != 10 {
		t.Errorf("without: degraded %v, failed %v, latency max %v, gave_up_attempts %v; want 0, 10, 10, 10",
			x.Degraded, x.Failed, x.LatencyMaxms, x.GaveUpAttempts)
	}
}

func replace(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	return s
}

// TestParallelAndSequentialSteps: with constant service times an
// operation takes the longest of a step's parallel calls, and the sum of
// sequential steps.
func TestParallelAndSequentialSteps(t *testing.T) {
	const js = `{"version": 1, "name": "steps",
		"workload": {"clients": 5, "arrival": "uniform", "rate": 20, "operations": 40, "plan": PLAN},
		"dependencies": [
			{"name": "a", "workers": 10, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 10},
			{"name": "b", "workers": 10, "service_time": {"kind": "constant", "mean": "30ms"}, "queue_capacity": 10,
				"network": {"request": {"kind": "constant", "mean": "1ms"}, "answer": {"kind": "constant", "mean": "2ms"}}}],
		"strategies": [{"name": "s", "max_attempts": 1}]}`
	for _, tc := range []struct {
		plan string
		want float64
	}{
		{`[{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]`, 33},
		{`[{"calls": [{"dependency": "a"}]}, {"calls": [{"dependency": "b"}]}]`, 43},
		{`[{"calls": [{"dependency": "b"}]}, {"calls": [{"dependency": "a"}, {"dependency": "a", "name": "a2"}]}]`, 43},
	} {
		sr := runPlan(t, decodePlan(t, replace(js, "PLAN", tc.plan))).Strategies[0]
		x := sr.Metrics
		if x.LatencyP50ms != tc.want || x.LatencyMaxms != tc.want || x.SuccessRate != 1 {
			t.Errorf("%s: latency p50 %v, max %v, success %v; want %v", tc.plan, x.LatencyP50ms, x.LatencyMaxms, x.SuccessRate, tc.want)
		}
		if a := callNamed(t, &sr, "a"); a.LatencyP50ms != 10 || a.Calls != 40 {
			t.Errorf("%s: a's calls %+v", tc.plan, a)
		}
		if b := callNamed(t, &sr, "b"); b.LatencyP99ms != 33 {
			t.Errorf("%s: b's calls %+v", tc.plan, b)
		}
		if want := x.DependencyCalls / (40 * float64(len(sr.Calls))); x.Amplification != want || want != 1 {
			t.Errorf("%s: amplification %v, want %v", tc.plan, x.Amplification, want)
		}
	}
}

// TestPriorityShedding: under overload, shedding the sheddable class
// keeps the critical calls succeeding, where without it both classes are
// refused by the full queue.
func TestPriorityShedding(t *testing.T) {
	const js = `{"version": 1, "name": "shedding", "seed": 5,
		"workload": {"clients": 100, "arrival": "poisson", "rate": 150, "duration": "10s",
			"plan": [{"calls": [{"dependency": "d", "name": "critical"},
				{"dependency": "d", "name": "sheddable", "class": "sheddable"}]}]},
		"dependencies": [{"name": "d", "workers": 2, "service_time": {"kind": "exponential", "mean": "10ms"}, "queue_capacity": 20 SHEDDING}],
		"strategies": [{"name": "s", "max_attempts": 1, "fallbacks": [{"call": "sheddable"}]}]}`
	shed := runPlan(t, decodePlan(t, replace(js, "SHEDDING", `, "shedding": {"measure": "queue", "thresholds": {"sheddable": 4}, "status": 429}`))).Strategies[0]
	plain := runPlan(t, decodePlan(t, replace(js, "SHEDDING", ""))).Strategies[0]
	c, s := callNamed(t, &shed, "critical"), callNamed(t, &shed, "sheddable")
	if c.SuccessRate < 0.99 || c.Shed != 0 {
		t.Errorf("with shedding, critical: %+v; want at least 99%% success, none shed", c)
	}
	if s.Shed < 0.3*s.Calls || s.SuccessRate > 0.7 || shed.Metrics.Shed != s.Shed {
		t.Errorf("with shedding, sheddable: %+v (shed in all %v); want many shed", s, shed.Metrics.Shed)
	}
	pc := callNamed(t, &plain, "critical")
	if pc.SuccessRate > c.SuccessRate-0.05 || pc.Rejections == 0 || plain.Metrics.Shed != 0 {
		t.Errorf("without shedding, critical: %+v; want clearly fewer successes than %v", pc, c.SuccessRate)
	}
}

// severalScenario uses most of what several dependencies bring: a plan of
// two steps with two fallbacks (one answering at once), shedding, a pool, a
// bulkhead, a breaker and a budget per dependency, layers and networks.
const severalScenario = `{"version": 1, "name": "det", "runs": 2,
		"workload": {"clients": 40, "arrival": "poisson", "rate": 300, "duration": "3s",
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b", "class": "sheddable_plus"}]},
				{"calls": [{"dependency": "a", "name": "a2", "class": "sheddable_plus"}]}]},
		"dependencies": [
			{"name": "a", "workers": 8, "service_time": {"kind": "lognormal", "p50": "10ms", "p99": "60ms"}, "queue_capacity": 30,
				"network": {"request": {"kind": "normal", "mean": "1ms", "stddev": "500us"}},
				"phases": [{"kind": "errors", "from": "1s", "to": "2s", "rate": 0.5}],
				"shedding": {"measure": "load", "thresholds": {"sheddable_plus": 10, "critical": 30}}},
			{"name": "b", "workers": 4, "service_time": {"kind": "exponential", "mean": "15ms"}, "queue_capacity": 10, "error_rate": 0.1,
				"phases": [{"kind": "latency", "from": "0.5s", "to": "1.5s", "factor": 3}]}],
		"strategies": [
			{"name": "retry", "max_attempts": 3, "attempt_timeout": "100ms", "backoff": {"kind": "exponential", "base": "10ms"}, "jitter": {"kind": "full"},
				"budget": {"kind": "token_bucket", "max_tokens": 20, "token_ratio": 0.1},
				"breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "1s", "break": "500ms"},
				"pool": {"slots": 20, "max_waiting": 10, "max_wait": "50ms"}, "bulkheads": [{"dependency": "b", "max_concurrent": 5, "max_waiting": 5}],
				"fallbacks": [{"call": "b", "latency": "1ms"}, {"call": "a2"}],
				"layers": [{"max_attempts": 2}]},
			{"name": "plain", "max_attempts": 1, "fallbacks": [{"call": "b", "latency": "1ms"}, {"call": "a2"}]}]}`

// TestPlanDeterministic: the same scenario of several dependencies gives
// the same result, byte for byte; each dependency's phases are reported
// with its name.
func TestPlanDeterministic(t *testing.T) {
	a, _ := json.Marshal(runPlan(t, decodePlan(t, severalScenario)))
	b, _ := json.Marshal(runPlan(t, decodePlan(t, severalScenario)))
	if string(a) != string(b) {
		t.Fatal("two runs of the same scenario differ")
	}
	res := runPlan(t, decodePlan(t, severalScenario))
	if len(res.Phases) != 2 || res.Phases[0].Dependency != "a" || res.Phases[1].Dependency != "b" {
		t.Errorf("phases %+v", res.Phases)
	}
	for _, sr := range res.Strategies {
		x := sr.Metrics
		if x.Succeeded+x.Degraded+x.Failed != x.Operations || len(sr.Calls) != 3 || len(sr.Series.Calls) != 3 {
			t.Errorf("%s: %v succeeded + %v degraded + %v failed != %v operations, or calls %d", sr.Name, x.Succeeded, x.Degraded, x.Failed, x.Operations, len(sr.Calls))
		}
		// The calls' counts add up to the strategy's.
		var sum CallMetrics
		for _, c := range sr.Calls {
			m := c.Metrics
			sum.Attempts += m.Attempts
			sum.DependencyCalls += m.DependencyCalls
			sum.Shed += m.Shed
			sum.PoolRejected += m.PoolRejected
			sum.BulkheadRejected += m.BulkheadRejected
			sum.FastFailed += m.FastFailed
			if m.Succeeded+m.FellBack+m.Failed > m.Calls {
				t.Errorf("%s, %s: %v succeeded + %v fell back + %v failed > %v calls", sr.Name, c.Name, m.Succeeded, m.FellBack, m.Failed, m.Calls)
			}
		}
		if sum.Attempts != x.Attempts || sum.DependencyCalls != x.DependencyCalls || sum.Shed != x.Shed ||
			sum.PoolRejected != x.PoolRejected || sum.BulkheadRejected != x.BulkheadRejected || sum.FastFailed != x.FastFailed {
			t.Errorf("%s: the calls' counts %+v do not add up to the strategy's", sr.Name, sum)
		}
	}
}

// TestPlanGolden compares the result of severalScenario with its golden
// file, byte for byte: run natively and under GOOS=js GOARCH=wasm, it
// shows that several dependencies give the same bytes on both.
func TestPlanGolden(t *testing.T) {
	res := runPlan(t, decodePlan(t, severalScenario))
	got, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(numberLists.ReplaceAllFunc(got, compactList), '\n')
	golden.Check(t, filepath.Join("testdata", "golden", "plan-several.json"), got)
}

// TestPlanCallsHaveTheirOwnKeys: each call of a plan is a request of its
// own: a non-idempotent operation calling two dependencies once each
// applies no duplicate, and two keyed calls in parallel do not see each
// other's key in progress.
func TestPlanCallsHaveTheirOwnKeys(t *testing.T) {
	const js = `{"version": 1, "name": "keys",
		"workload": {"clients": 5, "arrival": "uniform", "rate": 50, "operations": 50, "mix": {"non_idempotent": 1, "keyed": KEYED},
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "a", "name": "a2"}, {"dependency": "b"}]}]},
		"dependencies": [
			{"name": "a", "workers": 4, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 10},
			{"name": "b", "workers": 4, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 10}],
		"strategies": [{"name": "s", "max_attempts": 1}]}`
	for _, keyed := range []string{"0", "1"} {
		x := runPlan(t, decodePlan(t, replace(js, "KEYED", keyed))).Strategies[0].Metrics
		if x.Duplicates != 0 || x.SuccessRate != 1 {
			t.Errorf("keyed %s: %v duplicates, success rate %v; want none and 1", keyed, x.Duplicates, x.SuccessRate)
		}
	}
}

// TestPlanCommonRandomNumbers: the service time of a plan call's k-th
// attempt is the same whatever the strategy, even when an earlier call of
// the plan made more or fewer attempts; and the plan's calls do not share
// draws.
func TestPlanCommonRandomNumbers(t *testing.T) {
	sc := decodePlan(t, `{"version": 1, "name": "crn", "seed": 11,
		"workload": {"clients": 20, "arrival": "poisson", "rate": 200, "duration": "2s",
			"plan": [{"calls": [{"dependency": "a"}]}, {"calls": [{"dependency": "b"}]}]},
		"dependencies": [
			{"name": "a", "workers": 50, "service_time": {"kind": "lognormal", "p50": "1ms", "p99": "9ms"}, "queue_capacity": 50, "error_rate": 0.5},
			{"name": "b", "workers": 50, "service_time": {"kind": "lognormal", "p50": "1ms", "p99": "9ms"}, "queue_capacity": 50}],
		"strategies": [{"name": "retry", "max_attempts": 3, "fallbacks": [{"call": "a"}]}, {"name": "plain", "max_attempts": 1, "fallbacks": [{"call": "a"}]}]}`)
	type key struct {
		op      uint64
		pc      uint8
		attempt uint32
	}
	times := func(i int) map[key]int64 {
		out := map[key]int64{}
		simPlan(t, sc, i, func(s *sim, what string, id int32) {
			if what != "call" {
				return
			}
			c := &s.calls[id]
			idx := s.ops[c.op].depCalls - 1
			if c.pc > 0 {
				idx = s.opCall(c.op, c.pc).depCalls - 1
			}
			r := request{op: c.op, pc: c.pc, dep: c.dep, idx: idx}
			out[key{s.ops[c.op].key, c.pc, c.attempts}] = s.serviceTime(&r)
		})
		return out
	}
	retry, plain := times(0), times(1)
	same, differ := 0, 0
	for k, v := range plain {
		if k.pc != 1 {
			continue
		}
		if w, ok := retry[k]; !ok || w != v {
			t.Fatalf("b's call %v: %d ns without retries, %d with them (%v)", k, v, w, ok)
		}
		same++
		if a := plain[key{k.op, 0, 1}]; a != v {
			differ++
		}
	}
	if same < 300 || differ < same*9/10 {
		t.Errorf("%d of b's calls compared, %d of them drawn apart from a's", same, differ)
	}
}

// TestFailedCallAbandonsItsStep: a required call that fails ends the
// operation at once; the step's other call is abandoned (its request,
// already at its dependency, is served as wasted work) and the next step
// never starts.
func TestFailedCallAbandonsItsStep(t *testing.T) {
	sr := runPlan(t, decodePlan(t, `{"version": 1, "name": "abandon",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 5, "operations": 10,
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}, {"calls": [{"dependency": "c"}]}]},
		"dependencies": [
			{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1,
				"phases": [{"kind": "outage", "from": "0s", "to": "1s", "latency": "5ms", "status": 500}]},
			{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "50ms"}, "queue_capacity": 1},
			{"name": "c", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1}],
		"strategies": [{"name": "s", "max_attempts": 3}]}`)).Strategies[0]
	x := sr.Metrics
	// 5 operations start during a's outage and fail after 5 ms (500 is not
	// retried); the 5 after it succeed in 51 ms.
	if x.Failed != 5 || x.Succeeded != 5 || x.LatencyP50ms != 5 || x.LatencyMaxms != 51 || x.GaveUpNotRetryable != 5 {
		t.Errorf("failed %v, succeeded %v, latency p50 %v max %v, not retryable %v; want 5, 5, 5, 51, 5",
			x.Failed, x.Succeeded, x.LatencyP50ms, x.LatencyMaxms, x.GaveUpNotRetryable)
	}
	if b := callNamed(t, &sr, "b"); b.Calls != 10 || b.Succeeded != 5 || b.Failed != 0 || x.WastedWork != 5 {
		t.Errorf("b: %+v, wasted work %v; want 10 started, 5 succeeded, 5 abandoned and served as wasted work", b, x.WastedWork)
	}
	if c := callNamed(t, &sr, "c"); c.Calls != 5 || c.DependencyCalls != 5 {
		t.Errorf("c: %+v; want only the 5 operations that got past the first step", c)
	}
}

// TestPlanLimitsInvariants runs plans with pools, bulkheads, timeouts,
// layers and fallbacks in many combinations and checks what must hold at
// the end of every run: every slot given back, nobody left waiting,
// nothing left at the dependencies, and every operation counted once.
func TestPlanLimitsInvariants(t *testing.T) {
	const js = `{"version": 1, "name": "limits", "seed": SEED,
		"workload": {"clients": 30, "arrival": "poisson", "rate": 400, "duration": "1s",
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}, {"dependency": "a", "name": "a2", "class": "sheddable"}]},
				{"calls": [{"dependency": "b", "name": "b2"}]}]},
		"dependencies": [
			{"name": "a", "workers": 3, "service_time": {"kind": "exponential", "mean": "8ms"}, "queue_capacity": 5, "error_rate": 0.1,
				"shedding": {"measure": "load", "thresholds": {"sheddable": 4}},
				"phases": [{"kind": "freeze", "from": "300ms", "to": "400ms"}]},
			{"name": "b", "workers": 2, "service_time": {"kind": "exponential", "mean": "5ms"}, "queue_capacity": 3, "drop_abandoned": true,
				"network": {"request": {"kind": "constant", "mean": "1ms"}, "answer": {"kind": "normal", "mean": "1ms", "stddev": "1ms"}}}],
		"strategies": [
			{"name": "s", "max_attempts": 3, "attempt_timeout": "20ms", "backoff": {"kind": "exponential", "base": "2ms"}, "jitter": {"kind": "full"}, "instances": 2,
				"breaker": {"kind": "consecutive", "failures": 5, "break": "50ms", "scope": "SCOPE"},
				"pool": {"slots": SLOTS, "max_waiting": WAITING, "max_wait": "WAIT"},
				"bulkheads": [{"dependency": "b", "max_concurrent": 2, "max_waiting": WAITING, "max_wait": "WAIT"}],
				"fallbacks": [{"call": "b"}, {"call": "a2", "latency": "2ms"}],
				"layers": [{"max_attempts": 2, "attempt_timeout": "10ms"}]}]}`
	n := 0
	for _, seed := range []string{"1", "2"} {
		for _, slots := range []string{"1", "4"} {
			for _, waiting := range []string{"0", "3"} {
				for _, wait := range []string{"0s", "4ms"} {
					for _, scope := range []string{"client", "dependency"} {
						sc := js
						for _, kv := range [][2]string{{"SEED", seed}, {"SLOTS", slots}, {"WAITING", waiting}, {"WAITING", waiting}, {"WAIT", wait}, {"WAIT", wait}, {"SCOPE", scope}} {
							sc = replace(sc, kv[0], kv[1])
						}
						s := simPlan(t, decodePlan(t, sc), 0, nil)
						name := seed + "/" + slots + "/" + waiting + "/" + wait + "/" + scope
						for _, l := range append(append([]limiter{}, s.pools...), s.bulks...) {
							if l.used != 0 || l.live != 0 {
								t.Errorf("%s: a limiter ends with %d slots used and %d waiting", name, l.used, l.live)
							}
						}
						if s.poolUsed != 0 || s.inflightOp != 0 || s.travelling != 0 || !s.idle() {
							t.Errorf("%s: the run ends with %d slots, %d operations, %d travelling", name, s.poolUsed, s.inflightOp, s.travelling)
						}
						x := s.output(false).metrics
						if x.Succeeded+x.Degraded+x.Failed != x.Operations || x.Operations < 300 {
							t.Errorf("%s: %v + %v + %v != %v operations", name, x.Succeeded, x.Degraded, x.Failed, x.Operations)
						}
						if x.PoolRejected+x.BulkheadRejected > 0 {
							n++
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Error("no run refused a call: the combinations test nothing")
	}
}

// TestTimeoutWhileAnswerTravels: a caller whose attempt times out while
// its inner invocation's last answer travels back has nothing left to
// cancel. (Cancelling would free the inner call's slot again, maybe
// reused by another operation's call, which then would never end.)
func TestTimeoutWhileAnswerTravels(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "stale", "seed": 1,
		"workload": {"clients": 30, "arrival": "poisson", "rate": 400, "duration": "1s"},
		"dependency": {"workers": 2, "service_time": {"kind": "exponential", "mean": "5ms"}, "queue_capacity": 3,
			"network": {"request": {"kind": "constant", "mean": "1ms"}, "answer": {"kind": "normal", "mean": "1ms", "stddev": "1ms"}}},
		"strategies": [{"name": "s", "max_attempts": 3, "attempt_timeout": "20ms", "backoff": {"kind": "exponential", "base": "2ms"},
			"layers": [{"max_attempts": 2, "attempt_timeout": "10ms"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := simPlan(t, sc, 0, nil)
	seen := map[int32]bool{}
	for _, id := range s.freeCalls {
		if seen[id] {
			t.Fatalf("call %d freed twice", id)
		}
		seen[id] = true
	}
	if x := s.output(false).metrics; s.inflightOp != 0 || x.Succeeded+x.Failed != x.Operations {
		t.Errorf("%d operations never ended; %v succeeded + %v failed of %v", s.inflightOp, x.Succeeded, x.Failed, x.Operations)
	}
}

// TestPlanInvariantsClosedLoop checks the same invariants with
// closed-loop clients, an outside breaker, a ratio budget, contention,
// a dead-letter consumer and keyed non-idempotent operations.
func TestPlanInvariantsClosedLoop(t *testing.T) {
	const js = `{"version": 1, "name": "closed", "seed": SEED,
		"workload": {"clients": 20, "arrival": "closed", "think_time": "3ms", "duration": "600ms", "mix": {"non_idempotent": 0.5, "keyed": 0.5},
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b", "share": 0.7}]}, {"calls": [{"dependency": "a", "name": "a2"}]}]},
		"dependencies": [
			{"name": "a", "workers": 2, "service_time": {"kind": "lognormal", "p50": "3ms", "p99": "30ms"}, "queue_capacity": 4,
				"phases": [{"kind": "outage", "from": "100ms", "to": "200ms", "latency": "2ms"}, {"kind": "freeze", "from": "300ms", "to": "350ms", "status": 503}]},
			{"name": "b", "workers": 3, "service_time": {"kind": "exponential", "mean": "4ms"}, "queue_capacity": 2, "contention": {},
				"network": {"request": {"kind": "lognormal", "p50": "1ms", "p99": "4ms"}, "answer": {"kind": "constant", "mean": "1ms"}}}],
		"strategies": [
			{"name": "s", "max_attempts": 4, "attempt_timeout": "15ms", "deadline": "60ms", "retry_on": {"statuses": [409, 503], "timeout": true},
				"backoff": {"kind": "constant", "base": "1ms"}, "jitter": {"kind": "equal"}, "dead_letter": true,
				"breaker": {"kind": "ratio", "ratio": 0.9, "min_throughput": 20, "window": "50ms", "break": "20ms", "placement": "outside", "scope": "SCOPE"},
				"budget": {"kind": "ratio", "ratio": 0.3, "window": "100ms", "min_per_second": 10, "scope": "SCOPE"},
				"pool": {"slots": 6, "max_waiting": 4, "max_wait": "5ms"},
				"fallbacks": [{"call": "a", "latency": "1ms"}, {"call": "a2"}],
				"layers": [{"max_attempts": 2, "attempt_timeout": "8ms", "breaker": {"kind": "consecutive", "failures": 3, "break": "10ms"}}]}]}`
	for _, seed := range []string{"1", "2", "3"} {
		for _, scope := range []string{"client", "dependency"} {
			sc := replace(replace(replace(js, "SEED", seed), "SCOPE", scope), "SCOPE", scope)
			s := simPlan(t, decodePlan(t, sc), 0, nil)
			name := seed + "/" + scope
			if s.poolUsed != 0 || s.pools[0].live != 0 || s.inflightOp != 0 || !s.idle() {
				t.Errorf("%s: the run ends with %d slots, %d waiting, %d operations", name, s.poolUsed, s.pools[0].live, s.inflightOp)
			}
			seen := map[int32]bool{}
			for _, id := range s.freeCalls {
				if seen[id] {
					t.Fatalf("%s: call %d freed twice", name, id)
				}
				seen[id] = true
			}
			x := s.output(false).metrics
			if x.Succeeded+x.Degraded+x.Failed != x.Operations || x.Operations < 200 || x.Failed != x.DeadLettered {
				t.Errorf("%s: %v + %v + %v != %v operations, or %v dead-lettered", name, x.Succeeded, x.Degraded, x.Failed, x.Operations, x.DeadLettered)
			}
		}
	}
}

// TestPlanShare: a call with a share is made by about that share of
// operations, by the same operations for every strategy; a step whose only
// call an operation does not make is skipped, taking no time.
func TestPlanShare(t *testing.T) {
	res := runPlan(t, decodePlan(t, `{"version": 1, "name": "share", "seed": 9,
		"workload": {"clients": 10, "arrival": "uniform", "rate": 1000, "operations": 4000,
			"plan": [{"calls": [{"dependency": "a"}]}, {"calls": [{"dependency": "b", "share": 0.25}]}]},
		"dependencies": [
			{"name": "a", "workers": 100, "service_time": {"kind": "constant", "mean": "2ms"}, "queue_capacity": 10},
			{"name": "b", "workers": 100, "service_time": {"kind": "constant", "mean": "3ms"}, "queue_capacity": 10}],
		"strategies": [{"name": "one", "max_attempts": 1}, {"name": "three", "max_attempts": 3}]}`))
	var made []float64
	for i := range res.Strategies {
		st := &res.Strategies[i]
		a, b := callNamed(t, st, "a"), callNamed(t, st, "b")
		if a.Calls != 4000 || b.Calls < 900 || b.Calls > 1100 {
			t.Errorf("%s: a made %v calls, b %v; want 4000 and about 1000", st.Name, a.Calls, b.Calls)
		}
		made = append(made, b.Calls)
		x := st.Metrics
		// Operations that skip b end after a's 2 ms; the others after 5 ms.
		if x.LatencyP50ms != 2 || x.LatencyMaxms != 5 || x.Succeeded != 4000 {
			t.Errorf("%s: latency p50 %v, max %v, succeeded %v; want 2, 5, 4000", st.Name, x.LatencyP50ms, x.LatencyMaxms, x.Succeeded)
		}
		if want := x.DependencyCalls / (4000 * 1.25); x.Amplification != round6(want) {
			t.Errorf("%s: amplification %v, want %v (per call made on average)", st.Name, x.Amplification, want)
		}
	}
	if made[0] != made[1] {
		t.Errorf("b's calls differ between strategies: %v; the share is drawn per operation, the same for all", made)
	}
}

// TestPlanCallsInNoTime: a workload of operations that all end at 0 s
// has no span to count goodput over, for the whole nor for each plan
// call: 0 a second, not an infinity the result's JSON cannot hold.
func TestPlanCallsInNoTime(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "instant",
		"workload": {"clients": 3, "arrival": "burst", "plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}]},
		"dependencies": [{"name": "a", "workers": 3, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1},
			{"name": "b", "workers": 3, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1}],
		"strategies": [{"name": "s", "max_attempts": 1}]}`)
	st := res.Strategies[0]
	if m := st.Metrics; m.Succeeded != 3 || m.GoodputPerS != 0 {
		t.Errorf("the whole: %v succeeded, %v a second; want 3, 0", m.Succeeded, m.GoodputPerS)
	}
	if len(st.Calls) != 2 {
		t.Fatalf("%d plan calls; want 2", len(st.Calls))
	}
	for _, c := range st.Calls {
		if c.Metrics.Succeeded != 3 || c.Metrics.GoodputPerS != 0 {
			t.Errorf("call %s: %v succeeded, %v a second; want 3, 0", c.Name, c.Metrics.Succeeded, c.Metrics.GoodputPerS)
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Error(err)
	}
}
