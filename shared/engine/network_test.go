package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// network returns a dependency.network object with the same delay each way.
func network(delay string) string {
	return `, "network": {"request": ` + delay + `, "answer": ` + delay + `}`
}

const tenMs = `{"kind": "constant", "mean": "10ms"}`

func TestNetworkRefusalTakesARoundTrip(t *testing.T) {
	// One worker, no queue: the first call is served for 1 s, the second
	// is refused when it arrives at 10 ms, and the refusal is back at 20 ms.
	res := mustRun(t, `{"version": 1, "name": "refusal",
		"workload": {"clients": 2, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1s"}, "queue_capacity": 0`+network(tenMs)+`},
		"strategies": [{"name": "once", "max_attempts": 1}]}`)
	m := strategy(t, res, "once").Metrics
	if m.Rejections != 1 || m.Succeeded != 1 {
		t.Fatalf("rejections %v, succeeded %v; want 1 and 1", m.Rejections, m.Succeeded)
	}
	if m.LatencyP50ms != 20 || m.LatencyMaxms != 1020 {
		t.Errorf("latencies p50 %v ms, max %v ms; want the refusal at 20 and the success at 1020", m.LatencyP50ms, m.LatencyMaxms)
	}

	// Errors and Retry-After travel too: an error at 20 ms, and a retry
	// after Retry-After 100 ms fails at 20 + 100 + 20.
	res = mustRun(t, `{"version": 1, "name": "errors",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0, "error_rate": 1,
			"retry_after": {"statuses": [503], "after": "100ms"}`+network(tenMs)+`},
		"strategies": [{"name": "once", "max_attempts": 1}, {"name": "twice", "max_attempts": 2, "honor_retry_after": true}]}`)
	if got := strategy(t, res, "once").Metrics.LatencyMaxms; got != 20 {
		t.Errorf("an error came back after %v ms, want 20", got)
	}
	if got := strategy(t, res, "twice").Metrics.LatencyMaxms; got != 140 {
		t.Errorf("two errors with Retry-After 100 ms took %v ms, want 140", got)
	}
}

func TestNetworkEveryHopTravels(t *testing.T) {
	// A layer between client and dependency: two hops, 40 ms for an error
	// to come back. An inside breaker at the client fails its second call
	// fast, at once: it never leaves the client.
	res := mustRun(t, `{"version": 1, "name": "hops",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 2},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0, "error_rate": 1`+network(tenMs)+`},
		"strategies": [
			{"name": "layered", "max_attempts": 1, "layers": [{"max_attempts": 1}]},
			{"name": "breaker", "max_attempts": 1, "breaker": {"kind": "consecutive", "failures": 1, "break": "1h"}}
		]}`)
	if m := strategy(t, res, "layered").Metrics; m.LatencyP50ms != 40 || m.LatencyMaxms != 40 {
		t.Errorf("through a layer an error took %v..%v ms, want 40", m.LatencyP50ms, m.LatencyMaxms)
	}
	if m := strategy(t, res, "breaker").Metrics; m.FastFailed != 1 || m.LatencyP50ms != 0 || m.LatencyMaxms != 20 {
		t.Errorf("fast failed %v, latencies %v..%v ms; want 1, a fast failure in 0 ms and an error in 20", m.FastFailed, m.LatencyP50ms, m.LatencyMaxms)
	}
}

func TestNetworkTimeoutCountsFromTheSend(t *testing.T) {
	// A 21 ms round trip (10 + 1 + 10): a 15 ms attempt timeout expires
	// before the answer comes back, a 25 ms one does not.
	res := mustRun(t, `{"version": 1, "name": "timeouts",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 5},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10`+network(tenMs)+`},
		"strategies": [{"name": "short", "max_attempts": 1, "attempt_timeout": "15ms"},
			{"name": "long", "max_attempts": 1, "attempt_timeout": "25ms"}]}`)
	if m := strategy(t, res, "short").Metrics; m.Succeeded != 0 || m.LatencyMaxms != 15 || m.WastedWork != 5 {
		t.Errorf("short: succeeded %v, latency max %v ms, wasted %v; want 0, 15 and 5", m.Succeeded, m.LatencyMaxms, m.WastedWork)
	}
	if m := strategy(t, res, "long").Metrics; m.Succeeded != 5 || m.LatencyMaxms != 21 {
		t.Errorf("long: succeeded %v, latency max %v ms; want 5 and 21", m.Succeeded, m.LatencyMaxms)
	}
}

// burst is 1,000 clients failing at once and retrying on an un-jittered
// exponential backoff, with the given network.
func burst(net string) string {
	return `{"version": 1, "name": "burst", "seed": 7,
		"workload": {"clients": 1000, "arrival": "burst"},
		"dependency": {"workers": 1000, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0, "error_rate": 1` + net + `},
		"strategies": [{"name": "no-jitter", "max_attempts": 4, "backoff": {"kind": "exponential", "base": "100ms"}}]}`
}

func TestNetworkVarianceDesynchronizesABurst(t *testing.T) {
	peak := func(net string) float64 {
		return strategy(t, mustRun(t, burst(net)), "no-jitter").Metrics.RetryPeakPer10ms
	}
	none, constant := peak(""), peak(network(tenMs))
	varied := peak(network(`{"kind": "normal", "mean": "10ms", "stddev": "2ms"}`))
	t.Logf("retry peak per 10 ms: no network %v, constant 10 ms %v, normal(10 ms, 2 ms) %v", none, constant, varied)
	if none != 1000 || constant != 1000 {
		t.Errorf("without variance every round lands in one window: peaks %v and %v, want 1000", none, constant)
	}
	if varied >= 700 {
		t.Errorf("with normal(10 ms, 2 ms) each way the retry peak is %v; variance should spread the rounds", varied)
	}
}

func TestNetworkDeterministicAndOffByDefault(t *testing.T) {
	run := func(js string) []byte {
		sc, err := Parse([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		return b
	}
	lognormal := network(`{"kind": "lognormal", "p50": "5ms", "p99": "50ms"}`)
	if a, b := run(burst(lognormal)), run(burst(lognormal)); !bytes.Equal(a, b) {
		t.Error("the same seed gave different results")
	}
	// A network that takes no time schedules nothing: the same bytes as none.
	zero := network(`{"kind": "normal", "mean": "0s"}`)
	if a, b := run(burst("")), run(burst(zero)); !bytes.Equal(a, b) {
		t.Error("a zero network changed the result")
	}
	// The network's draws have their own stream: the k-th call of an
	// operation gets the same lognormal service time with or without it.
	svc := func(net string) map[[2]uint64]int64 {
		sc, err := Parse([]byte(strings.Replace(burst(net), `{"kind": "constant", "mean": "1ms"}`, `{"kind": "lognormal", "p50": "1ms", "p99": "9ms"}`, 1)))
		if err != nil {
			t.Fatal(err)
		}
		m := compile(sc)
		s := newSim(context.Background(), m, &m.strategies[0], 7, 0)
		times := map[[2]uint64]int64{}
		s.observe = func(s *sim, what string, id int32) {
			if what == "call" {
				// One call of an operation is in flight at a time: the
				// last one sent is the one arriving.
				op := &s.ops[s.calls[id].op]
				times[[2]uint64{op.key, uint64(op.depCalls - 1)}] = s.serviceTime(&request{op: s.calls[id].op, idx: op.depCalls - 1})
			}
		}
		if err := s.run(); err != nil {
			t.Fatal(err)
		}
		return times
	}
	a, b := svc(""), svc(lognormal)
	if len(a) != 4000 || len(b) != 4000 {
		t.Fatalf("%d and %d calls, want 4000", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Fatalf("call %v: service time %d without the network, %d with it", k, v, b[k])
		}
	}
}

func TestNetworkValidation(t *testing.T) {
	for _, tc := range []struct{ net, want string }{
		{`{"request": {"kind": "gaussian", "mean": "1ms"}}`, `dependency.network.request.kind: "gaussian" is not one of "constant", "normal", "lognormal"`},
		{`{"answer": {"kind": "constant", "mean": "1ms", "stddev": "1ms"}}`, `dependency.network.answer.stddev: "1ms" has no meaning for a "constant" delay; it is for "normal"`},
		{`{"answer": {"kind": "lognormal", "p50": "2ms", "p99": "1ms"}}`, `dependency.network.answer.p99: "1ms" is below p50 2ms`},
		{`{"request": {"kind": "normal", "mean": "-1ms"}}`, `dependency.network.request.mean: "-1ms" is negative`},
	} {
		_, err := Parse([]byte(strings.Replace(burst(""), `"error_rate": 1`, `"error_rate": 1, "network": `+tc.net, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.net, err, tc.want)
		}
	}
}

func TestNetworkEstimate(t *testing.T) {
	est := func(js string) int64 {
		sc, err := Parse([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return Estimate(sc)
	}
	none, zero := est(burst("")), est(burst(network(`{"kind": "constant", "mean": "0s"}`)))
	both, one := est(burst(network(tenMs))), est(burst(`, "network": {"answer": `+tenMs+`}`))
	// 1,000 operations × 4 attempts, each a hop: 4,000 events per leg.
	if zero != none || one-none < 4000 || both-none < 8000 {
		t.Errorf("estimates: no network %d, zero %d, one leg %d, both %d", none, zero, one, both)
	}
	// A contended read adds its request and answer to every hop that
	// takes time, 8,000 events more; with no network it takes no event.
	contended, still := est(burst(network(tenMs)+contention)), est(burst(contention))
	if contended-both < 8000 || still != none {
		t.Errorf("estimates with contention: both legs %d (without %d), no network %d (without %d)", contended, both, still, none)
	}
}
