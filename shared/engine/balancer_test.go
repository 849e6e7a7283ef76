package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// backendScenario is a healthy dependency of n backends behind balancer,
// under 2,000 operations at 200 a second (each backend's 4 workers × 10 ms
// serve 400 a second), with the phases given.
func backendScenario(n int, balancer BalancerKind, phases string) string {
	return fmt.Sprintf(`{"version": 1, "name": "backends",
		"workload": {"clients": 100, "arrival": "poisson", "rate": 200, "operations": 2000},
		"dependency": {"workers": 4, "service_time": {"kind": "exponential", "mean": "10ms"}, "queue_capacity": 100,
			"backends": {"count": %d, "balancer": %q}, "phases": [%s]},
		"strategies": [{"name": "once", "max_attempts": 1, "attempt_timeout": "1s"}]}`, n, balancer, phases)
}

func backendsOf(t *testing.T, sr *StrategyResult, n int) []BackendMetrics {
	t.Helper()
	if len(sr.Backends) != n {
		t.Fatalf("%s: %d backend results, want %d", sr.Name, len(sr.Backends), n)
	}
	ms := make([]BackendMetrics, n)
	for i, b := range sr.Backends {
		if b.Backend != i || b.Dependency != "dependency" {
			t.Fatalf("backend result %d is %q's backend %d", i, b.Dependency, b.Backend)
		}
		ms[i] = b.Metrics
	}
	return ms
}

// TestBalancerShares: on healthy, identical backends every balancer
// spreads the requests evenly: round robin exactly (within one), random
// within 4.5 standard deviations of a binomial share, and the two
// least-request balancers at least as evenly as random. Every request is
// routed once and answered once.
func TestBalancerShares(t *testing.T) {
	const n, total = 4, 2000
	for _, kind := range BalancerKinds {
		res := mustRun(t, backendScenario(n, kind, ""))
		sr := &res.Strategies[0]
		bs := backendsOf(t, sr, n)
		sum := 0.0
		worst := 0.0
		for i, b := range bs {
			sum += b.Requests
			worst = max(worst, math.Abs(b.Requests-total/n))
			if b.Succeeded+b.Failed != b.Requests {
				t.Errorf("%s backend %d: %v succeeded and %v failed of %v requests", kind, i, b.Succeeded, b.Failed, b.Requests)
			}
			if math.Abs(b.Share-b.Requests/total) > 1e-9 {
				t.Errorf("%s backend %d: share %v of %v requests", kind, i, b.Share, b.Requests)
			}
		}
		if sum != sr.Metrics.DependencyCalls || sum != total {
			t.Errorf("%s: %v requests routed, %v dependency calls, want %d", kind, sum, sr.Metrics.DependencyCalls, total)
		}
		sd := math.Sqrt(total * (1.0 / n) * (1 - 1.0/n)) // 19.4
		bound := map[BalancerKind]float64{BalanceRoundRobin: 1, BalanceRandom: 4.5 * sd, BalanceLeastRequest: 4.5 * sd, BalancePowerOfTwo: 4.5 * sd}[kind]
		if worst > bound {
			t.Errorf("%s: a backend is %v requests off an even %d; allowed %v", kind, worst, total/n, bound)
		}
	}
}

// TestPickBackend: each balancer's choice on a hand-built state.
func TestPickBackend(t *testing.T) {
	state := func(active ...int) []int { return active }
	draw := func(first, second uint64) uint64 { return first<<32 | second }
	quarter := uint64(1) << 30 // a 32-bit draw of 1/4: backend 1 of 4
	for _, tc := range []struct {
		name   string
		kind   BalancerKind
		active []int
		x      uint64
		want   int
	}{
		{"least request takes the fewest", BalanceLeastRequest, []int{3, 5, 0, 2}, 0, 2},
		{"least request: the crashed backend with none", BalanceLeastRequest, []int{7, 0, 9, 8}, draw(3*quarter, 0), 1},
		{"least request breaks a tie at random: the first of two", BalanceLeastRequest, []int{1, 4, 1, 4}, draw(0, 0), 0},
		{"least request breaks a tie at random: the second of two", BalanceLeastRequest, []int{1, 4, 1, 4}, draw(3*quarter, 0), 2},
		{"two choices: the second drawn has fewer", BalancePowerOfTwo, []int{3, 5, 0, 2}, draw(quarter, 3*quarter), 3},
		{"two choices: the first drawn has fewer", BalancePowerOfTwo, []int{3, 1, 0, 2}, draw(quarter, 0), 1},
		{"two choices: a tie keeps the first drawn", BalancePowerOfTwo, []int{3, 2, 0, 2}, draw(quarter, 3*quarter), 1},
		{"two choices never see an undrawn idle backend", BalancePowerOfTwo, []int{3, 5, 0, 2}, draw(quarter, 0), 0},
		{"random takes the first draw", BalanceRandom, []int{0, 0, 0, 0}, draw(3*quarter, 0), 3},
	} {
		if got := pickBackend(tc.kind, state(tc.active...), tc.x); got != tc.want {
			t.Errorf("%s: picked %d of %v, want %d", tc.name, got, tc.active, tc.want)
		}
	}
}

// TestBackendPhasesHitTheirBackends: a phase aimed at backends by index or
// by share changes those backends only; one without a selector changes
// every backend.
func TestBackendPhasesHitTheirBackends(t *testing.T) {
	for _, tc := range []struct {
		phase string
		hit   []bool
	}{
		{`{"kind": "outage", "from": "0s", "to": "1h", "backends": [1]}`, []bool{false, true, false, false}},
		{`{"kind": "outage", "from": "0s", "to": "1h", "backends": [3, 0]}`, []bool{true, false, false, true}},
		{`{"kind": "outage", "from": "0s", "to": "1h", "backend_share": 0.5}`, []bool{true, true, false, false}},
		{`{"kind": "outage", "from": "0s", "to": "1h", "backend_share": 0.3}`, []bool{true, true, false, false}},
		{`{"kind": "errors", "rate": 1, "from": "0s", "to": "1h", "backend_share": 0.25}`, []bool{true, false, false, false}},
		{`{"kind": "outage", "from": "0s", "to": "1h", "error": "connection"}`, []bool{true, true, true, true}},
	} {
		res := mustRun(t, backendScenario(4, BalanceRoundRobin, tc.phase))
		for i, b := range backendsOf(t, &res.Strategies[0], 4) {
			if hit := b.Succeeded == 0 && b.Failed == b.Requests; hit != tc.hit[i] || b.Requests == 0 {
				t.Errorf("%s: backend %d answered %v of %v requests well; hit %v, want %v", tc.phase, i, b.Succeeded, b.Requests, hit, tc.hit[i])
			}
		}
	}
	// A slow backend (a latency phase) keeps its successes but holds more
	// requests: the least-request balancer sends it fewer.
	res := mustRun(t, backendScenario(2, BalanceLeastRequest, `{"kind": "latency", "factor": 10, "from": "0s", "to": "1h", "backends": [0]}`))
	bs := backendsOf(t, &res.Strategies[0], 2)
	if bs[0].Requests >= bs[1].Requests || bs[0].Failed != 0 {
		t.Errorf("a 10× slower backend 0 got %v requests (%v failed) against backend 1's %v; want fewer, none failed", bs[0].Requests, bs[0].Failed, bs[1].Requests)
	}
}

// TestLeastRequestSinkhole: a backend that fails fast holds no request,
// so the least-request balancers send it more than its share, full scan
// more than two choices; round robin and random send it its share. (At
// this light load the healthy backends are often idle too, and a tie is
// broken at random: the sinkhole grows with the load.)
func TestLeastRequestSinkhole(t *testing.T) {
	crash := `{"kind": "outage", "from": "0s", "to": "1h", "backends": [0]}`
	share := map[BalancerKind]float64{}
	for _, kind := range BalancerKinds {
		res := mustRun(t, backendScenario(4, kind, crash))
		share[kind] = backendsOf(t, &res.Strategies[0], 4)[0].Share
	}
	if math.Abs(share[BalanceRoundRobin]-0.25) > 0.001 || math.Abs(share[BalanceRandom]-0.25) > 0.05 {
		t.Errorf("the crashed backend's share: round robin %v, random %v; want 0.25", share[BalanceRoundRobin], share[BalanceRandom])
	}
	if share[BalanceLeastRequest] < 0.35 {
		t.Errorf("least request sends the crashed backend %v of the requests; want well above its 0.25", share[BalanceLeastRequest])
	}
	if p2c := share[BalancePowerOfTwo]; p2c <= 0.25+0.05 || p2c >= share[BalanceLeastRequest] {
		t.Errorf("two choices send the crashed backend %v; want above its 0.25 and below full scan's %v", p2c, share[BalanceLeastRequest])
	}
}

// TestBackendsActiveReturnToZero: every request routed to a backend is
// answered or dropped there once, whatever the phases and timeouts.
func TestBackendsActiveReturnToZero(t *testing.T) {
	js := strings.Replace(backendScenario(3, BalanceLeastRequest, `{"kind": "freeze", "from": "2s", "to": "3s", "status": 503, "backends": [0]},
		{"kind": "outage", "from": "4s", "to": "5s", "latency": "300ms", "backends": [1]},
		{"kind": "latency", "factor": 50, "from": "6s", "to": "8s", "backends": [2]}`), `"max_attempts": 1, "attempt_timeout": "1s"`, `"max_attempts": 3, "attempt_timeout": "100ms"`, 1)
	js = strings.Replace(js, `"queue_capacity": 100`, `"queue_capacity": 100, "drop_abandoned": true`, 1)
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	s := simPlan(t, sc, 0, nil)
	for i := s.nd; i < s.ns; i++ {
		if a := s.deps[i].active; a != 0 {
			t.Errorf("backend %d: %d requests still active after the run", i-s.nd, a)
		}
	}
	if s.ns != s.nd+3 {
		t.Errorf("%d servers for %d dependencies, want 3 backends more", s.ns, s.nd)
	}
}

// TestBackendsValidation: each mistake is named by its field, with its
// value and what is allowed.
func TestBackendsValidation(t *testing.T) {
	for _, tc := range []struct{ backends, phases, want string }{
		{`{"count": 1}`, ``, `dependency.backends.count: 1 is out of range 2..8`},
		{`{"count": 9}`, ``, `dependency.backends.count: 9 is out of range 2..8`},
		{`{"count": 2, "balancer": "least_conn"}`, ``, `dependency.backends.balancer: "least_conn" is not one of "round_robin", "random", "least_request", "power_of_two_choices"`},
		{`{"count": 2}`, `{"kind": "outage", "from": "1s", "to": "2s", "backends": [2]}`, `dependency.phases[0].backends[0]: 2 is not a backend of the dependency; backends are numbered 0..1`},
		{`{"count": 3}`, `{"kind": "outage", "from": "1s", "to": "2s", "backends": [1, 1]}`, `dependency.phases[0].backends[1]: 1 is listed twice`},
		{`{"count": 2}`, `{"kind": "outage", "from": "1s", "to": "2s", "backend_share": 1.5}`, `dependency.phases[0].backend_share: 1.5 is out of range; a share of the backends is in (0, 1]`},
		{`{"count": 2}`, `{"kind": "outage", "from": "1s", "to": "2s", "backend_share": -0.5}`, `dependency.phases[0].backend_share: -0.5 is out of range; a share of the backends is in (0, 1]`},
		{`{"count": 2}`, `{"kind": "outage", "from": "1s", "to": "2s", "backends": [-1]}`, `dependency.phases[0].backends[0]: -1 is not a backend of the dependency; backends are numbered 0..1`},
		{`{"count": 8}`, `{"kind": "outage", "from": "1s", "to": "2s", "backends": [0, 1, 2, 3, 4, 5, 6, 7, 0]}`, `dependency.phases[0].backends: lists 9 backends; at most 8 are allowed`},
		{`{"count": 2}`, `{"kind": "outage", "from": "1s", "to": "2s", "backend_share": 0.5, "backends": [0]}`, `dependency.phases[0].backend_share: 0.5 is given together with backends`},
		{``, `{"kind": "outage", "from": "1s", "to": "2s", "backends": [0]}`, `dependency.phases[0].backends: has no meaning for a dependency without backends`},
		{``, `{"kind": "outage", "from": "1s", "to": "2s", "backend_share": 0.5}`, `dependency.phases[0].backend_share: 0.5 has no meaning for a dependency without backends`},
		{`{"count": 5}, "autoscale": {"metric": "utilization", "target": 0.8, "period": "15s", "warm_up": "30s", "min": 1, "max": 4}`, ``, `dependency.autoscale.min: 1 and max 4 do not hold backends.count 5`},
		{`{"count": 2}`, `{"kind": "outage", "from": "1s", "to": "3s", "backends": [0]}, {"kind": "outage", "from": "2s", "to": "4s"}`, `dependency.phases[1]: overlaps phases[0]`},
	} {
		js := fmt.Sprintf(`{"version": 1, "name": "v", "workload": {"clients": 1, "arrival": "burst"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0, "phases": [%s]%s},
			"strategies": [{"name": "a", "max_attempts": 1}]}`, tc.phases, map[bool]string{true: `, "backends": ` + tc.backends}[tc.backends != ""])
		_, err := Parse([]byte(js))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: err = %v, want %q", tc.backends, tc.phases, err, tc.want)
		}
	}
	// The ranges' edges are allowed: a share of 1, every backend listed,
	// the last one.
	for _, ph := range []string{`{"kind": "outage", "from": "1s", "to": "2s", "backend_share": 1}`,
		`{"kind": "outage", "from": "1s", "to": "2s", "backends": [0, 1, 2, 3, 4, 5, 6, 7]}`, `{"kind": "outage", "from": "1s", "to": "2s", "backends": [7]}`} {
		if _, err := Parse([]byte(backendScenario(8, BalanceRandom, ph))); err != nil {
			t.Errorf("8 backends, %s: %v", ph, err)
		}
	}
	// Phases of the same kind on different backends may overlap.
	js := backendScenario(2, BalanceRandom, `{"kind": "outage", "from": "1s", "to": "3s", "backends": [0]}, {"kind": "outage", "from": "2s", "to": "4s", "backends": [1]}`)
	if _, err := Parse([]byte(js)); err != nil {
		t.Errorf("outages of two different backends overlapping: %v", err)
	}
	// The dependencies and their backends fit the engine's servers.
	var deps []string
	for i := range 3 {
		deps = append(deps, fmt.Sprintf(`{"name": "d%d", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0, "backends": {"count": 8}}`, i))
	}
	js = `{"version": 1, "name": "v", "workload": {"clients": 1, "arrival": "burst", "plan": [{"calls": [{"dependency": "d0"}]}]},
		"dependencies": [` + strings.Join(deps, ",") + `], "strategies": [{"name": "a", "max_attempts": 1}]}`
	if _, err := Parse([]byte(js)); err == nil || !strings.Contains(err.Error(), "dependencies: has 27 dependencies and backends together; at most 16 are allowed") {
		t.Errorf("3 dependencies of 8 backends: err = %v", err)
	}
}

// TestPreviousHosts: with the previous_hosts predicate a retry rejects
// the backend its invocation tried and picks again, at most
// host_selection_retry_max_attempts times (default 1), the last pick
// standing. Backend 0 of 2 fails every request; 2 attempts at once.
func TestPreviousHosts(t *testing.T) {
	const ops = 2000
	failed := func(balancer BalancerKind, policy string) float64 {
		t.Helper()
		js := strings.Replace(backendScenario(2, balancer, `{"kind": "outage", "from": "0s", "to": "1h", "backends": [0]}`),
			`"max_attempts": 1, "attempt_timeout": "1s"`, `"max_attempts": 2, "attempt_timeout": "1s"`+policy, 1)
		res := mustRun(t, js)
		return 1 - res.Strategies[0].Metrics.SuccessRate
	}
	// The same through the balancer's other path, among the backends in
	// rotation (routeAround): outlier detection that ejects nothing (5xx
	// not enforced, and a 500, retried here, is no gateway failure)
	// changes no pick.
	around := func(balancer BalancerKind, policy string) (without, with float64) {
		t.Helper()
		js := strings.Replace(backendScenario(2, balancer, `{"kind": "outage", "from": "0s", "to": "1h", "backends": [0], "status": 500}`),
			`"max_attempts": 1, "attempt_timeout": "1s"`, `"max_attempts": 2, "attempt_timeout": "1s", "retry_on": {"statuses": [500]}`+policy, 1)
		od := strings.Replace(js, fmt.Sprintf(`"balancer": %q}`, balancer),
			fmt.Sprintf(`"balancer": %q, "outlier_detection": {"enforcing_consecutive_5xx": 0, "consecutive_gateway_failure": 5}}`, balancer), 1)
		if od == js {
			t.Fatal("the test's scenario has no balancer to add outlier detection to")
		}
		res := mustRun(t, od)
		if e := res.Strategies[0].Backends[0].Metrics.Ejections; e != 0 {
			t.Fatalf("backend 0 ejected %v times; the test needs outlier detection that ejects nothing", e)
		}
		return 1 - mustRun(t, js).Strategies[0].Metrics.SuccessRate, 1 - res.Strategies[0].Metrics.SuccessRate
	}
	// A random balancer: the first attempt fails with probability 1/2,
	// its retry with 1/2 without the predicate, 1/4 with one reselection
	// (both picks land on backend 0), 1/2^11 with ten.
	sd := func(p float64) float64 { return 4.5 * math.Sqrt(p*(1-p)/ops) }
	for _, tc := range []struct {
		policy string
		want   float64
	}{
		{``, 0.25},
		{`, "retry_host_predicate": "previous_hosts"`, 0.125},
		{`, "retry_host_predicate": "previous_hosts", "host_selection_retry_max_attempts": 1`, 0.125},
		{`, "retry_host_predicate": "previous_hosts", "host_selection_retry_max_attempts": 10`, 0.5 / 2048},
	} {
		got := failed(BalanceRandom, tc.policy)
		if math.Abs(got-tc.want) > sd(tc.want)+1.0/ops {
			t.Errorf("random%s: %.4f of operations failed, want %.4f ± %.4f", tc.policy, got, tc.want, sd(tc.want))
		}
		if without, with := around(BalanceRandom, tc.policy); with != without || math.Abs(with-tc.want) > sd(tc.want)+1.0/ops {
			t.Errorf("random%s, answering 500: %.4f of operations failed with outlier detection that ejects nothing, %.4f without; want %.4f ± %.4f",
				tc.policy, with, without, tc.want, sd(tc.want))
		}
	}
	// Full-scan least request picks the crashed backend again whenever it
	// holds the fewest requests: the reselections change nothing there,
	// and the last pick stands. Two choices draw afresh at each pick, and
	// land on the crashed backend whenever either draw does (it holds no
	// request, the healthy one mostly one or two): 3/4 of the picks, so
	// about 0.75·0.75 of the operations fail without the predicate and
	// 0.75·0.75^6 ≈ 0.13 with five reselections.
	pred := `, "retry_host_predicate": "previous_hosts", "host_selection_retry_max_attempts": 5`
	lr, lrPred := failed(BalanceLeastRequest, ""), failed(BalanceLeastRequest, pred)
	if lrPred < 0.5*lr {
		t.Errorf("least request: %.3f failed without the predicate, %.3f with; want the sinkhole to hold", lr, lrPred)
	}
	if p2c, p2cPred := failed(BalancePowerOfTwo, ""), failed(BalancePowerOfTwo, pred); p2c < 0.45 || p2c > 0.65 || p2cPred < 0.07 || p2cPred > 0.18 {
		t.Errorf("two choices: %.3f failed without the predicate, %.3f with; want about 0.56 and 0.13", p2c, p2cPred)
	}
}

// TestPreviousHostsValidation: the predicate's fields are named with
// their values and what is allowed.
func TestPreviousHostsValidation(t *testing.T) {
	withBackends := backendScenario(2, BalanceRandom, "")
	without := strings.Replace(withBackends, `"backends": {"count": 2, "balancer": "random"}, `, ``, 1)
	for _, tc := range []struct{ js, policy, want string }{
		{withBackends, `"retry_host_predicate": "other_hosts"`, `strategies[0].retry_host_predicate: "other_hosts" is not one of "previous_hosts"`},
		{withBackends, `"host_selection_retry_max_attempts": 3`, `strategies[0].host_selection_retry_max_attempts: 3 has no meaning without retry_host_predicate "previous_hosts"`},
		{withBackends, `"retry_host_predicate": "previous_hosts", "host_selection_retry_max_attempts": 101`, `strategies[0].host_selection_retry_max_attempts: 101 is out of range 1..100, or 0 (or absent): the default, 1`},
		{without, `"retry_host_predicate": "previous_hosts"`, `strategies[0].retry_host_predicate: "previous_hosts" has no meaning: no dependency has backends`},
		{withBackends, `"retry_host_predicate": "previous_hosts", "layers": [{"max_attempts": 1}]`, `strategies[0].retry_host_predicate: "previous_hosts" is for the innermost level`},
	} {
		js := strings.Replace(tc.js, `"max_attempts": 1, "attempt_timeout": "1s"`, `"max_attempts": 1, "attempt_timeout": "1s", `+tc.policy, 1)
		_, err := Parse([]byte(js))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.policy, err, tc.want)
		}
	}
	js := strings.Replace(withBackends, `"max_attempts": 1, "attempt_timeout": "1s"`, `"max_attempts": 1, "layers": [{"max_attempts": 2, "retry_host_predicate": "previous_hosts"}]`, 1)
	if _, err := Parse([]byte(js)); err != nil {
		t.Errorf("the predicate on the innermost layer: %v", err)
	}
}

// outlierScenario is 2 (or n) backends behind round robin, 10 requests a
// second arriving evenly, one attempt each, with the phases and outlier
// detection given.
func outlierScenario(n int, od, phases string, duration string) string {
	return fmt.Sprintf(`{"version": 1, "name": "outliers",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": %q},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
			"backends": {"count": %d, "balancer": "round_robin", "outlier_detection": %s}, "phases": [%s]},
		"strategies": [{"name": "once", "max_attempts": 1, "attempt_timeout": "1s"}]}`, duration, n, od, phases)
}

// routedTo runs strategy 0 of js and returns when each request was
// routed to backend k (a first attempt's call has tried just the backend
// it was routed to).
func routedTo(t *testing.T, js string, k int) []time.Duration {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Duration
	simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what == "call" && s.calls[id].tried == 1<<k {
			at = append(at, time.Duration(s.now))
		}
	})
	return at
}

// TestOutlierEjection: a backend failing every request is ejected at its
// 5th failure in a row, comes back at the first sweep (every 10 s) after
// 30 s, is ejected again at its 5th next failure for 60 s; while it is
// in, each sweep lowers its multiplier by one, so that an ejection after
// a long healthy spell lasts 30 s again.
func TestOutlierEjection(t *testing.T) {
	ms := func(d float64) time.Duration { return time.Duration(d * float64(time.Millisecond)) }
	// Requests at 0, 100, 200 ms…, round robin: backend 0 gets the even
	// ones while both are in, every one while it is alone.
	crash := `{"kind": "outage", "from": "0s", "to": "1h", "backends": [0]}`
	at := routedTo(t, outlierScenario(2, `{}`, crash, "130s"), 0)
	want := []time.Duration{0, ms(200), ms(400), ms(600), ms(800), // ejected at 800 ms until 30.8 s: back at the sweep of 40 s
		ms(40000), ms(40200), ms(40400), ms(40600), ms(40800)} // again, for 60 s: until 100.8 s, back at 110 s
	for i := range 5 {
		want = append(want, ms(110000+200*float64(i))) // the third ejection, 90 s: past the run
	}
	if !slices.Equal(at, want) {
		t.Errorf("backend 0 got requests at %v, want %v", at, want)
	}
	res := mustRun(t, outlierScenario(2, `{}`, crash, "130s"))
	if e := res.Strategies[0].Backends[0].Metrics.Ejections; e != 3 {
		t.Errorf("backend 0 ejected %v times, want 3", e)
	}
	// A crash from 0 to 5 s: ejected at 0.8 s, back at 40 s with a
	// multiplier of 1, lowered to 0 by the sweep of 50 s. A second crash
	// from 100 s: ejected at 100.8 s for 30 s, back at the sweep of 140 s
	// (170 s if the multiplier had stayed at 1).
	twice := `{"kind": "outage", "from": "0s", "to": "5s", "backends": [0]}, {"kind": "outage", "from": "100s", "to": "105s", "backends": [0]}`
	at = routedTo(t, outlierScenario(2, `{}`, twice, "150s"), 0)
	var back time.Duration
	for _, a := range at {
		if a > ms(100800) {
			back = a
			break
		}
	}
	if back != ms(140000) {
		t.Errorf("after the second crash backend 0 is back at %v, want 2m20s", back)
	}
	// consecutive_5xx 3, a base of 1 s, sweeps every 500 ms.
	at = routedTo(t, outlierScenario(2, `{"consecutive_5xx": 3, "base_ejection_time": "1s", "interval": "500ms"}`, crash, "3s"), 0)
	// Ejected at 0.4 s until 1.4 s: back at the sweep of 1.5 s, where
	// round robin's turn (it went on counting over backend 1 alone) gives
	// it the request of 1.6 s; ejected again at 2 s for 2 s: past the run.
	want = []time.Duration{0, ms(200), ms(400), ms(1600), ms(1800), ms(2000)}
	if !slices.Equal(at, want) {
		t.Errorf("consecutive_5xx 3: backend 0 got requests at %v, want %v", at, want)
	}
	// Gateway failures (502, 503, 504 and connection errors) eject only
	// when asked to; a 500 is not one. Every 5xx, 500 to 599, is a 5xx.
	for _, tc := range []struct {
		od, status string
		ejections  float64
	}{
		{`{"enforcing_consecutive_5xx": 0, "consecutive_gateway_failure": 5}`, `"status": 503`, 1},
		{`{"enforcing_consecutive_5xx": 0, "consecutive_gateway_failure": 5}`, `"status": 500`, 0},
		{`{"enforcing_consecutive_5xx": 0, "consecutive_gateway_failure": 5}`, `"error": "connection"`, 1},
		{`{"enforcing_consecutive_5xx": 0, "consecutive_gateway_failure": 5}`, `"status": 502`, 1},
		{`{"enforcing_consecutive_5xx": 0, "consecutive_gateway_failure": 5}`, `"status": 504`, 1},
		{`{}`, `"status": 500`, 1},
		{`{}`, `"status": 599`, 1}, // the last 5xx
		{`{}`, `"status": 429`, 0},
	} {
		ph := fmt.Sprintf(`{"kind": "outage", "from": "0s", "to": "1h", "backends": [0], %s}`, tc.status)
		res := mustRun(t, outlierScenario(2, tc.od, ph, "10s"))
		if e := res.Strategies[0].Backends[0].Metrics.Ejections; e != tc.ejections {
			t.Errorf("%s answering %s: %v ejections, want %v", tc.od, tc.status, e, tc.ejections)
		}
	}
}

// TestMaxEjectionPercent: of four backends, two fail everything. With the
// default 10% only one can be out at a time (the first always can); with
// 50% both can; and below half in rotation the balancer uses all four.
func TestMaxEjectionPercent(t *testing.T) {
	crash := `{"kind": "outage", "from": "0s", "to": "1h", "backends": [0, 1]}`
	for _, tc := range []struct {
		od        string
		ejections float64 // of backends 0 and 1 in the first 20 s (one ejection each at most)
	}{
		{`{}`, 1},
		{`{"max_ejection_percent": 50}`, 2},
		{`{"max_ejection_percent": 25}`, 1},
	} {
		res := mustRun(t, outlierScenario(4, tc.od, crash, "20s"))
		bs := res.Strategies[0].Backends
		if e := bs[0].Metrics.Ejections + bs[1].Metrics.Ejections; e != tc.ejections {
			t.Errorf("%s: %v ejections, want %v", tc.od, e, tc.ejections)
		}
	}
	// Two of four ejected leave exactly half in rotation: not below
	// min_health_percent's 50, no panic; the failing backends get no
	// request after their 5 failures each.
	res := mustRun(t, outlierScenario(4, `{"max_ejection_percent": 50}`, crash, "20s"))
	bs := res.Strategies[0].Backends
	if f := bs[0].Metrics.Requests + bs[1].Metrics.Requests; f != 10 {
		t.Errorf("half ejected: the failing backends got %v requests, want 10 (5 each)", f)
	}
	// Three of four failing, all ejectable: the third ejection would leave
	// one in four, below half: in panic the balancer uses every backend.
	res = mustRun(t, outlierScenario(4, `{"max_ejection_percent": 100}`, `{"kind": "outage", "from": "0s", "to": "1h", "backends": [0, 1, 2]}`, "20s"))
	bs = res.Strategies[0].Backends
	if bs[0].Metrics.Requests+bs[1].Metrics.Requests+bs[2].Metrics.Requests < 30 {
		t.Errorf("three of four ejected: the failing backends got %v, %v, %v requests; in panic they get their share", bs[0].Metrics.Requests, bs[1].Metrics.Requests, bs[2].Metrics.Requests)
	}
	// min_health_percent 0 (Istio's default): no panic, one backend takes
	// everything once the three are out (5 failures each before that).
	res = mustRun(t, outlierScenario(4, `{"max_ejection_percent": 100, "min_health_percent": 0}`, `{"kind": "outage", "from": "0s", "to": "1h", "backends": [0, 1, 2]}`, "20s"))
	bs = res.Strategies[0].Backends
	if f := bs[0].Metrics.Requests + bs[1].Metrics.Requests + bs[2].Metrics.Requests; f != 15 {
		t.Errorf("min_health_percent 0: the failing backends got %v requests, want 15 (5 each)", f)
	}
}

// TestOutlierValidation: each field is named with its value and what is
// allowed.
func TestOutlierValidation(t *testing.T) {
	for _, tc := range []struct{ od, want string }{
		{`{"consecutive_5xx": -1}`, `dependency.backends.outlier_detection.consecutive_5xx: -1 is out of range 1..1000`},
		{`{"enforcing_consecutive_5xx": 50}`, `dependency.backends.outlier_detection.enforcing_consecutive_5xx: 50 is not 0 or 100`},
		{`{"enforcing_consecutive_5xx": 0}`, `dependency.backends.outlier_detection.enforcing_consecutive_5xx: 0 turns off the only ejection left`},
		{`{"max_ejection_percent": 120}`, `dependency.backends.outlier_detection.max_ejection_percent: 120 is out of range`},
		{`{"min_health_percent": -1}`, `dependency.backends.outlier_detection.min_health_percent: -1 is out of range`},
		{`{"interval": "-1s"}`, `dependency.backends.outlier_detection.interval: "-1s" is negative`},
		{`{"base_ejection_time": "40s", "max_ejection_time": "30s"}`, `dependency.backends.outlier_detection.max_ejection_time: "30s" is below base_ejection_time 40s`},
		{`{"consecutive_gateway_failure": 1001}`, `dependency.backends.outlier_detection.consecutive_gateway_failure: 1001 is out of range 1..1000, or 0 (or absent): the default, no gateway ejection`},
		{`{"consecutive_5xxx": 3}`, `consecutive_5xxx`},
		{`{"max_ejection_time": "29.999s"}`, `dependency.backends.outlier_detection.max_ejection_time: "29.999s" is below base_ejection_time 30s`},
	} {
		_, err := Parse([]byte(outlierScenario(2, tc.od, "", "10s")))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.od, err, tc.want)
		}
	}
	// The ranges' edges are allowed.
	for _, od := range []string{`{"base_ejection_time": "40s", "max_ejection_time": "40s"}`, `{"max_ejection_time": "30s"}`,
		`{"consecutive_5xx": 1000, "consecutive_gateway_failure": 1}`, `{"max_ejection_percent": 100, "min_health_percent": 0}`} {
		if _, err := Parse([]byte(outlierScenario(2, od, "", "10s"))); err != nil {
			t.Errorf("%s: %v", od, err)
		}
	}
}
