package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each test here shows one modelled mechanism doing what the documentation
// says, by comparing strategies that differ only in that mechanism.

func TestTokenBucketSweep(t *testing.T) {
	// token-bucket-sweep (from "Retries That Fail Better"): 10,000 calls of
	// at most 5 attempts; the dependency fails each attempt with probability
	// p; gRPC throttling 10 tokens, ratio 0.1.
	res := mustRun(t, `{"version": 1, "name": "token bucket",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 100, "operations": 10000},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 100, "error_rate": 0.01},
		"strategies": [
			{"name": "no-budget", "max_attempts": 5},
			{"name": "token-bucket", "max_attempts": 5, "budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}}
		],
		"sweep": {"path": "dependency.error_rate", "values": [0.01, 0.2, 0.5, 1]}}`)
	if len(res.Sweep) != 4 || len(res.Strategies) != 0 {
		t.Fatalf("got %d sweep points and %d top-level strategies, want 4 and 0", len(res.Sweep), len(res.Strategies))
	}
	var prev float64
	for i, pt := range res.Sweep {
		nb, tb := pt.Strategies[0].Metrics, pt.Strategies[1].Metrics
		if tb.Attempts > nb.Attempts {
			t.Errorf("p=%v: the budget sent more attempts (%v) than no budget (%v)", pt.Value, tb.Attempts, nb.Attempts)
		}
		if nb.Attempts < prev {
			t.Errorf("p=%v: attempts without budget fell as p rose", pt.Value)
		}
		prev = nb.Attempts
		if i == 0 && tb.RetriesDenied > 0 {
			t.Errorf("p=1%%: the bucket denied %v retries; at 1%% failures it should never run dry", tb.RetriesDenied)
		}
	}
	all := res.Sweep[3].Strategies
	if all[0].Metrics.Attempts != 50000 {
		t.Errorf("p=100%% without budget: %v attempts, want 50000", all[0].Metrics.Attempts)
	}
	// Tokens 10 → 9, 8, 7, 6 allow four retries; at 5 the bucket is shut
	// and, with no success to refill it, stays shut.
	if all[1].Metrics.Retries != 4 || all[1].Metrics.Attempts != 10004 {
		t.Errorf("p=100%% with the bucket: %v retries, %v attempts; want 4 and 10004", all[1].Metrics.Retries, all[1].Metrics.Attempts)
	}
}

func TestIdempotencyKeysPreventDuplicates(t *testing.T) {
	// idempotency-keys (from "Retries That Fail Better"): the server
	// sometimes finishes after the 2 s attempt timeout.
	res := mustRun(t, `{"version": 1, "name": "payments",
		"workload": {"clients": 10, "arrival": "poisson", "rate": 5, "duration": "60s", "mix": {"non_idempotent": 1}},
		"dependency": {"workers": 50, "service_time": {"kind": "lognormal", "p50": "500ms", "p99": "4s"}, "queue_capacity": 100},
		"strategies": [
			{"name": "no-retry", "max_attempts": 1, "attempt_timeout": "2s"},
			{"name": "retry-no-key", "max_attempts": 3, "attempt_timeout": "2s", "retry_non_idempotent": true,
			 "backoff": {"kind": "constant", "base": "100ms"}},
			{"name": "retry-with-key", "max_attempts": 3, "attempt_timeout": "2s", "idempotency_key": true,
			 "backoff": {"kind": "constant", "base": "100ms"}},
			{"name": "safe-default", "max_attempts": 3, "attempt_timeout": "2s", "backoff": {"kind": "constant", "base": "100ms"}}
		]}`)
	if d := strategy(t, res, "no-retry").Metrics.Duplicates; d != 0 {
		t.Errorf("no retry: %v duplicates", d)
	}
	noKey := strategy(t, res, "retry-no-key").Metrics
	if noKey.Duplicates == 0 {
		t.Errorf("retries without a key made no duplicate charge; the slow tail should cause some")
	}
	withKey := strategy(t, res, "retry-with-key").Metrics
	if withKey.Duplicates != 0 {
		t.Errorf("retries with a key made %v duplicates", withKey.Duplicates)
	}
	if withKey.Retries == 0 {
		t.Errorf("with a key, timed-out payments should be retried")
	}
	safe := strategy(t, res, "safe-default").Metrics
	if safe.Retries != 0 || safe.GaveUpNonIdempotent == 0 {
		t.Errorf("a policy that does not retry non-idempotent work sent %v retries and gave up %v times for it", safe.Retries, safe.GaveUpNonIdempotent)
	}
}

func TestDeadLetters(t *testing.T) {
	// dead-letters (from "Retries That Fail Better"): max 10 deliveries;
	// unreadable messages and non-transient errors go straight to the DLQ.
	res := mustRun(t, `{"version": 1, "name": "consumer",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "20s", "mix": {"unreadable": 0.1}},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 10,
			"phases": [{"kind": "outage", "from": "5s", "to": "12s", "status": 503},
			           {"kind": "errors", "from": "15s", "to": "16s", "rate": 1, "status": 400}]},
		"strategies": [
			{"name": "dlq", "max_attempts": 10, "dead_letter": true, "backoff": {"kind": "exponential", "base": "100ms", "max": "1s"}},
			{"name": "no-dlq", "max_attempts": 10, "backoff": {"kind": "exponential", "base": "100ms", "max": "1s"}}
		]}`)
	m := strategy(t, res, "dlq").Metrics
	if m.DeadLettered == 0 || m.DeadLettered != m.Failed {
		t.Errorf("dead-lettered %v of %v failed messages; every failed message goes to the DLQ", m.DeadLettered, m.Failed)
	}
	if m.DeadLetteredUnread == 0 || m.DeadLetteredUnread != m.GaveUpUnreadable {
		t.Errorf("unreadable: %v dead-lettered, %v given up", m.DeadLetteredUnread, m.GaveUpUnreadable)
	}
	if m.DeadLetteredPerm == 0 {
		t.Errorf("400s during 15-16 s should be dead-lettered as non-transient")
	}
	if m.DeadLetteredAttempts == 0 {
		t.Errorf("a 7 s outage outlasts 10 deliveries over 6.5 s of waits; some messages should run out of deliveries")
	}
	if d := strategy(t, res, "no-dlq").Metrics.DeadLettered; d != 0 {
		t.Errorf("without a DLQ %v messages were dead-lettered", d)
	}
}

func TestClosedLoop(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "closed",
		"workload": {"clients": 10, "arrival": "closed", "think_time": "90ms", "duration": "10s"},
		"dependency": {"workers": 100, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 0},
		"strategies": [{"name": "s", "max_attempts": 1}]}`)
	// Each client cycles every 100 ms: about 100 operations each.
	if ops := res.Strategies[0].Metrics.Operations; ops < 950 || ops > 1010 {
		t.Errorf("%v operations, want about 1000", ops)
	}
}

func TestFreezeServesOrAnswersBacklog(t *testing.T) {
	const tmpl = `{"version": 1, "name": "freeze",
		"workload": {"clients": 10, "arrival": "uniform", "rate": 100, "duration": "3s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 1000,
			"phases": [{"kind": "freeze", "from": "1s", "to": "1.5s", "status": STATUS}]},
		"strategies": [{"name": "s", "max_attempts": 1, "attempt_timeout": "10s"}]}`
	served := mustRun(t, strings.Replace(tmpl, "STATUS", "0", 1)).Strategies[0].Metrics
	if served.SuccessRate != 1 {
		t.Errorf("a freeze that serves its backlog lost operations: success rate %v", served.SuccessRate)
	}
	if served.LatencyMaxms < 490 {
		t.Errorf("operations held by the freeze should wait about 500 ms; max latency %v ms", served.LatencyMaxms)
	}
	answered := mustRun(t, strings.Replace(tmpl, "STATUS", "503", 1)).Strategies[0].Metrics
	// Operations arriving in [1 s, 1.5 s) are answered 503 when it ends.
	if answered.Failed < 49 || answered.Failed > 51 {
		t.Errorf("%v operations failed; the 50 held by the freeze should get 503", answered.Failed)
	}
}

func TestOverloadWastedWorkAndShedding(t *testing.T) {
	// load-shedding-goodput (from "Reliability Patterns") in miniature: 150%
	// load on a FIFO server.
	const tmpl = `{"version": 1, "name": "overload",
		"workload": {"clients": 100, "arrival": "poisson", "rate": 150, "duration": "20s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "100ms"}, "queue_capacity": QUEUE, "drop_abandoned": DROP},
		"strategies": [{"name": "s", "max_attempts": 1, "attempt_timeout": "1s"}]}`
	run := func(queue, drop string) Metrics {
		return mustRun(t, strings.NewReplacer("QUEUE", queue, "DROP", drop).Replace(tmpl)).Strategies[0].Metrics
	}
	keep, drop, shed := run("100000", "false"), run("100000", "true"), run("10", "false")
	if keep.WastedWork < 1000 {
		t.Errorf("queueing everything: %v requests served after their client left, want most of them", keep.WastedWork)
	}
	if drop.DroppedAbandoned == 0 || drop.WastedWork >= keep.WastedWork {
		t.Errorf("dropping abandoned requests: %v dropped, %v wasted (keeping them: %v wasted)", drop.DroppedAbandoned, drop.WastedWork, keep.WastedWork)
	}
	// Capacity is 100/s: shedding early keeps goodput near it; queueing everything does not.
	if shed.GoodputPerS < 90 || keep.GoodputPerS > 30 {
		t.Errorf("goodput: shedding %v/s, queueing everything %v/s; want near 100 and far below", shed.GoodputPerS, keep.GoodputPerS)
	}
}

func TestRetryAfterAndDeadline(t *testing.T) {
	const tmpl = `{"version": 1, "name": "retry-after",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0,
			"retry_after": {"statuses": [503], "after": "AFTER"},
			"phases": [{"kind": "outage", "from": "0s", "to": "5s", "status": 503}]},
		"strategies": [{"name": "s", "max_attempts": 3, "deadline": "10s", "honor_retry_after": true,
			"backoff": {"kind": "constant", "base": "100ms"}}]}`
	m := mustRun(t, strings.Replace(tmpl, "AFTER", "3s", 1)).Strategies[0].Metrics
	// Attempts at 0 s, 3 s (503 again), 6 s (the outage is over).
	if m.Succeeded != 1 || m.Attempts != 3 || m.LatencyMaxms != 6001 {
		t.Errorf("succeeded %v after %v attempts in %v ms; want 1 after 3 attempts in 6001 ms", m.Succeeded, m.Attempts, m.LatencyMaxms)
	}
	m = mustRun(t, strings.Replace(tmpl, "AFTER", "20s", 1)).Strategies[0].Metrics
	if m.Attempts != 1 || m.GaveUpDeadline != 1 || m.LatencyMaxms != 0 {
		t.Errorf("a Retry-After beyond the deadline: %v attempts, %v deadline give-ups, %v ms; want to give up at once", m.Attempts, m.GaveUpDeadline, m.LatencyMaxms)
	}
}

func TestFleetOfLocalBudgets(t *testing.T) {
	// runaway-cascade's fleet trap (from "The Retry Policy That Took Down the
	// Entire Cluster"): 50 instances each within a local 10% budget
	// still add up, and each local budget starts with its own allowance.
	const tmpl = `{"version": 1, "name": "fleet",
		"workload": {"clients": 500, "arrival": "poisson", "rate": 500, "duration": "10s"},
		"dependency": ` + alwaysFails + `,
		"strategies": [{"name": "s", "max_attempts": 3, "backoff": {"kind": "constant", "base": "100ms"},
			"budget": {"kind": "ratio", "ratio": 0.1, "window": "1s", "min_per_second": 1}, "instances": N}]}`
	one := mustRun(t, strings.Replace(tmpl, "N", "1", 1)).Strategies[0].Metrics
	fleet := mustRun(t, strings.Replace(tmpl, "N", "50", 1)).Strategies[0].Metrics
	if fleet.Retries <= 1.5*one.Retries {
		t.Errorf("50 local budgets sent %v retries, one shared budget %v; local reserves should add up", fleet.Retries, one.Retries)
	}
}

func TestAdaptiveBackoffStretchesWaits(t *testing.T) {
	const tmpl = `{"version": 1, "name": "adaptive",
		"workload": {"clients": 10, "arrival": "poisson", "rate": 20, "duration": "20s"},
		"dependency": ` + alwaysFails + `,
		"strategies": [{"name": "s", "max_attempts": 4, "deadline": "5s", "backoff": {"kind": "constant", "base": "500ms"} ADAPTIVE}]}`
	plain := mustRun(t, strings.Replace(tmpl, "ADAPTIVE", "", 1)).Strategies[0].Metrics
	adaptive := mustRun(t, strings.Replace(tmpl, "ADAPTIVE", `, "adaptive": {"window": "30s", "above": 0.5, "factor": 4}`, 1)).Strategies[0].Metrics
	if plain.Retries != 3*plain.Operations {
		t.Errorf("plain backoff: %v retries for %v operations, want 3 each", plain.Retries, plain.Operations)
	}
	// ×4 makes waits 2 s: the 5 s deadline allows two retries, not three.
	if adaptive.Retries >= plain.Retries || adaptive.GaveUpDeadline == 0 {
		t.Errorf("adaptive backoff: %v retries (plain %v), %v deadline give-ups", adaptive.Retries, plain.Retries, adaptive.GaveUpDeadline)
	}
}

func TestLoadDependentErrors(t *testing.T) {
	const tmpl = `{"version": 1, "name": "cascade",
		"workload": {"clients": 500, "arrival": "poisson", "rate": RATE, "duration": "20s"},
		"dependency": {"workers": 1000, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 0,
			"load_errors": {"window": "1s", "points": [{"load": 500, "rate": 0.1}, {"load": 550, "rate": 0.18}, {"load": 590, "rate": 0.25}, {"load": 625, "rate": 0.4}]}},
		"strategies": [{"name": "none", "max_attempts": 1}]}`
	low := mustRun(t, strings.Replace(tmpl, "RATE", "300", 1)).Strategies[0].Metrics
	high := mustRun(t, strings.Replace(tmpl, "RATE", "600", 1)).Strategies[0].Metrics
	if f := 1 - low.SuccessRate; f < 0.08 || f > 0.12 {
		t.Errorf("below the first point the failure rate should be its 10%%; got %.3f", f)
	}
	if f := 1 - high.SuccessRate; f < 0.22 || f > 0.35 {
		t.Errorf("at about 600 calls/s the failure rate should be near 27%%; got %.3f", f)
	}
}

func TestOutsideBreakerSeesOperations(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "outside",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
		"dependency": `+alwaysFails+`,
		"strategies": [
			{"name": "inside", "max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 10, "break": "30s"}},
			{"name": "outside", "max_attempts": 3, "breaker": {"kind": "consecutive", "failures": 10, "break": "30s", "placement": "outside"}}
		]}`)
	in, out := strategy(t, res, "inside").Metrics, strategy(t, res, "outside").Metrics
	// Inside: 10 failed attempts open it (in the 4th operation). Outside: 10 failed operations of 3 attempts.
	if in.DependencyCalls != 10 || out.DependencyCalls != 30 {
		t.Errorf("calls before opening: inside %v, outside %v; want 10 and 30", in.DependencyCalls, out.DependencyCalls)
	}
	if out.FastFailed != out.Operations-10 || out.GaveUpBreaker != out.FastFailed {
		t.Errorf("outside: %v failed fast of %v operations", out.FastFailed, out.Operations)
	}
}

func TestLatencyPhaseAndCapacity(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "slow",
		"workload": {"clients": 10, "arrival": "uniform", "rate": 10, "duration": "10s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 10,
			"phases": [{"kind": "latency", "from": "2s", "to": "4s", "factor": 5}, {"kind": "capacity", "from": "5s", "to": "6s", "workers": 0}]},
		"strategies": [{"name": "s", "max_attempts": 1, "attempt_timeout": "5s"}]}`)
	m := res.Strategies[0].Metrics
	// 20 operations at 100 ms; 10 of them wait for the workers to return at 6 s.
	if m.LatencyP50ms != 20 || m.LatencyMaxms < 900 || m.SuccessRate != 1 {
		t.Errorf("p50 %v ms, max %v ms, success %v; want 20 ms, about 1 s, 100%%", m.LatencyP50ms, m.LatencyMaxms, m.SuccessRate)
	}
	if len(res.Phases) != 2 || res.Phases[0].Label != "latency ×5" || res.Phases[1].Label != "capacity 0 workers" {
		t.Errorf("phases %+v", res.Phases)
	}
}

func TestCostLimitAndCancellation(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "big",
		"workload": {"clients": 1000, "arrival": "poisson", "rate": 10000, "duration": "1h"},
		"dependency": {"workers": 100, "service_time": {"kind": "exponential", "mean": "5ms"}, "queue_capacity": 100},
		"strategies": [{"name": "s", "max_attempts": 5}], "runs": 10}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), sc, Options{MaxEvents: 1_000_000})
	var ce *CostError
	if !errors.As(err, &ce) || ce.Limit != 1_000_000 || ce.Estimate < 5_000_000_000 {
		t.Fatalf("err = %v, want a CostError naming the estimate and the limit", err)
	}
	if !strings.Contains(err.Error(), "1.0 million") {
		t.Errorf("message %q does not state the limit", err)
	}
	// A context already cancelled stops the run at its first check. (A
	// timer could not fire during the run under GOOS=js, where nothing
	// preempts the loop; the playground stops a run by ending its worker.)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Run(ctx, sc, Options{})
	if !errors.Is(err, ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a stop by the context", err)
	}
	// A simulation stops at its event limit whatever the estimate said.
	m := compile(sc)
	sim := newSim(context.Background(), m, &m.strategies[0], 1, 100_000)
	if err := sim.run(); !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "100000 events") {
		t.Fatalf("err = %v, want a stop at the event limit", err)
	}
}

func TestCountBasedBreakerWindow(t *testing.T) {
	// Ten failures, then successes, one call per 100 ms. Counted over the
	// last 20 calls the failures still make half at the 20th call; over a
	// 1 s window they have left it.
	res := mustRun(t, `{"version": 1, "name": "count window",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "3s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 0,
			"phases": [{"kind": "outage", "from": "0s", "to": "1s"}]},
		"strategies": [
			{"name": "count", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 20, "window_calls": 20, "break": "10s"}},
			{"name": "time", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "1s", "break": "10s"}}
		]}`)
	count, tm := strategy(t, res, "count"), strategy(t, res, "time")
	if len(count.Transitions) != 1 || count.Transitions[0].AtS != 1.9 {
		t.Errorf("count-based window: transitions %+v, want one opening at 1.9 s", count.Transitions)
	}
	if len(tm.Transitions) != 1 || tm.Transitions[0].AtS != 0.9 {
		t.Errorf("time window: transitions %+v, want one opening at 0.9 s (ten failures in a second)", tm.Transitions)
	}
}

func TestLoadErrorsScaleWithCapacity(t *testing.T) {
	// 600 calls/s against a curve at its usual 10 workers fails about 27%;
	// with 20 workers the same load reads as 300 and fails 10%.
	res := mustRun(t, `{"version": 1, "name": "scaled",
		"workload": {"clients": 100, "arrival": "uniform", "rate": 600, "duration": "20s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 100,
			"load_errors": {"points": [{"load": 500, "rate": 0.1}, {"load": 625, "rate": 0.4}]},
			"phases": [{"kind": "capacity", "from": "10s", "to": "20s", "workers": 20}]},
		"strategies": [{"name": "none", "max_attempts": 1}],
		"report": {"affected_from": "11s", "affected_to": "20s"}}`)
	m := res.Strategies[0].Metrics
	if f := 1 - m.AffectedSuccessRate; f < 0.08 || f > 0.12 {
		t.Errorf("with twice the workers the failure rate should fall to 10%%; got %.3f", f)
	}
	if f := 1 - m.SuccessRate; f < 0.15 {
		t.Errorf("over the whole run (half at 27%%, half at 10%%) the failure rate %.3f is too low", f)
	}
}

func TestLongVirtualTimeStaysSmall(t *testing.T) {
	// 100 attempts a day apart: 99 days of virtual time. The bins coarsen
	// instead of growing (grown, they would take gigabytes), and the 10 ms peak
	// stays exact.
	res := mustRun(t, `{"version": 1, "name": "slow consumer",
		"workload": {"clients": 3, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0, "error_rate": 1},
		"strategies": [{"name": "daily", "max_attempts": 100, "backoff": {"kind": "constant", "base": "24h"}}]}`)
	st := res.Strategies[0]
	if st.Metrics.DependencyCalls != 300 || st.Metrics.PeakPer10ms != 3 || st.Metrics.SettleS != 99*86400 {
		t.Errorf("calls %v, 10 ms peak %v, settled at %v s; want 300, 3, %d", st.Metrics.DependencyCalls, st.Metrics.PeakPer10ms, st.Metrics.SettleS, 99*86400)
	}
	if n := len(st.Series.Attempts); n > 600 || n < 100 {
		t.Errorf("%d series buckets, want at most 600", n)
	}
	var total int32
	for _, v := range st.Series.Attempts {
		total += v
	}
	if total != 300 {
		t.Errorf("the series holds %d calls, want 300", total)
	}
}

func TestEstimateCountsSweepsAndFastClosedLoops(t *testing.T) {
	base := `{"version": 1, "name": "est",
		"workload": {"clients": 10, "arrival": "closed", "think_time": "10ms", "duration": "100s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10s"}, "queue_capacity": 0},
		"strategies": [{"name": "s", "max_attempts": 2}]SWEEP}`
	sc, err := Parse([]byte(strings.Replace(base, "SWEEP", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	// 10 clients × 100 s / 10 ms think time, whatever the service time.
	if got := Estimate(sc); got < 100_000*2*3 {
		t.Errorf("closed loop estimated at %d events; a failing client cycles every think time", got)
	}
	swept, err := Parse([]byte(strings.Replace(base, "SWEEP", `, "sweep": {"path": "strategies[0].max_attempts", "values": [1, 100]}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	costliest, err := Parse([]byte(strings.Replace(strings.Replace(base, "SWEEP", "", 1), `"max_attempts": 2`, `"max_attempts": 100`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got, one := Estimate(swept), Estimate(costliest); got < one {
		t.Errorf("a sweep to 100 attempts estimated at %d, less than its costliest value's %d", got, one)
	}
}

func TestAnswerAtTheTimeoutInstantIsInTime(t *testing.T) {
	for _, limit := range []string{`"attempt_timeout": "40ms"`, `"deadline": "40ms"`, `"attempt_timeout": "40ms", "deadline": "40ms"`} {
		res := mustRun(t, `{"version": 1, "name": "tie",
			"workload": {"clients": 5, "arrival": "burst"},
			"dependency": {"workers": 5, "service_time": {"kind": "constant", "mean": "40ms"}, "queue_capacity": 0},
			"strategies": [{"name": "s", "max_attempts": 1, `+limit+`}]}`)
		if m := res.Strategies[0].Metrics; m.Succeeded != 5 || m.WastedWork != 0 {
			t.Errorf("%s: %v of 5 succeeded, %v wasted; an answer at the limit's instant is in time", limit, m.Succeeded, m.WastedWork)
		}
	}
}

func TestStaleTrialDoesNotDecideALaterRound(t *testing.T) {
	// Two trials per half-open round. Round 1 (1.0 s): T1 succeeds slowly
	// (at 3.5 s), T2 fails at 1.1 s and reopens. Round 2 (2.1 s): T3 succeeds
	// at 4.6 s, T4 fails at 5.2 s. T1's late success belongs to round 1: it
	// must not help close round 2, and T4's failure must reopen the breaker.
	res := mustRun(t, `{"version": 1, "name": "stale trial",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "8s"},
		"dependency": {"workers": 100, "service_time": {"kind": "constant", "mean": "2.5s"}, "queue_capacity": 0,
			"phases": [{"kind": "outage", "from": "0s", "to": "50ms"}, {"kind": "outage", "from": "1050ms", "to": "1150ms"},
				{"kind": "outage", "from": "2150ms", "to": "2250ms", "latency": "3s"}]},
		"strategies": [{"name": "s", "max_attempts": 1, "breaker": {"kind": "consecutive", "failures": 1, "break": "1s", "half_open_calls": 2}}]}`)
	var got []string
	for _, tr := range res.Strategies[0].Transitions {
		got = append(got, fmt.Sprintf("%.1f %s", tr.AtS, tr.To))
	}
	if s := strings.Join(got, ","); !strings.HasPrefix(s, "0.0 open,1.0 half_open,1.1 open,2.1 half_open,5.2 open") {
		t.Errorf("transitions %s; want round 2 decided by T4's failure at 5.2 s", s)
	}
}

func TestProgressCountsSimulations(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "p", "runs": 3,
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0},
		"strategies": [{"name": "a", "max_attempts": 1}, {"name": "b", "max_attempts": 1}],
		"sweep": {"path": "dependency.workers", "values": [1, 2]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	_, err = Run(context.Background(), sc, Options{Progress: func(done, total int) { seen = append(seen, fmt.Sprintf("%d/%d", done, total)) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, " "); got != "1/12 2/12 3/12 4/12 5/12 6/12 7/12 8/12 9/12 10/12 11/12 12/12" {
		t.Errorf("progress %s", got)
	}
}

// TestEstimateCountsSetUpAndResultSize: a simulation costs its set-up
// whatever its operations (counted by operations alone, a million
// clients, a thousand runs, twenty strategies and one operation would be
// estimated at 60,001 events and run 8 s), and a fine series bucket over
// a long span makes a large result (counted by events alone, 5,185, it
// holds 6.7 million numbers).
func TestEstimateCountsSetUpAndResultSize(t *testing.T) {
	strategies := func(n int) string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf(`{"name": "s%d", "max_attempts": 1}`, i))
		}
		return strings.Join(s, ", ")
	}
	crowd, err := Parse([]byte(`{"version": 1, "runs": 1000,
		"workload": {"clients": 1000000, "arrival": "burst", "operations": 1},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1},
		"strategies": [` + strategies(20) + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := Estimate(crowd); got < 1_000_000_000 {
		t.Errorf("a million clients × 1,000 runs × 20 strategies estimated at %d events", got)
	}
	wide, err := Parse([]byte(`{"version": 1,
		"workload": {"clients": 1, "rate": 0.02, "duration": "24h"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1},
		"strategies": [` + strategies(20) + `],
		"report": {"series_bucket": "1ms", "peak_resolutions": ["1ms", "2ms", "3ms", "4ms", "5ms"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), wide, Options{})
	if err != nil {
		t.Fatal(err)
	}
	size, est := res.Size(), EstimateSize(wide)
	if size < 6_000_000 || est < size || est > 2*size {
		t.Errorf("the result holds %d numbers, estimated at %d; want an estimate within 1..2× of the size", size, est)
	}
	if Estimate(wide) < est {
		t.Errorf("the cost estimate %d does not count the result's %d numbers", Estimate(wide), est)
	}
}

// TestSizeEstimatesBoundBuiltinResults: the size estimate is at least the
// size of every built-in's result, and not wildly more.
func TestSizeEstimatesBoundBuiltinResults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every built-in")
	}
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if size, est := res.Size(), EstimateSize(sc); est < size || est > 20*size+10_000 {
			t.Errorf("%s: the result holds %d numbers, estimated at %d", name, size, est)
		}
	}
}

func TestUnlimitedAttempts(t *testing.T) {
	// A dependency that always fails, retried every 100 ms without limit:
	// the 2 s deadline stops each operation.
	const base = `{"version": 1, "name": "unlimited",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 3},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10, "error_rate": 1},
		"strategies": [{"name": "forever", "max_attempts": 0 DEADLINE, "backoff": {"kind": "constant", "base": "100ms"}}]}`
	res := mustRun(t, strings.Replace(base, "DEADLINE", `, "deadline": "2s"`, 1))
	m := strategy(t, res, "forever").Metrics
	if m.GaveUpDeadline != 3 || m.Succeeded != 0 {
		t.Errorf("gave up by the deadline %v, succeeded %v; want 3 and 0", m.GaveUpDeadline, m.Succeeded)
	}
	// Attempts at 0, 100 ms, … 1.9 s: the wait before a 21st would end at
	// the deadline, and min_attempt_time 0 still fits; the one at 2 s
	// would start at the deadline itself, which has passed by its answer.
	if m.Attempts < 3*19 || m.Attempts > 3*21 {
		t.Errorf("%v attempts for 3 operations, want about 20 each", m.Attempts)
	}
	if m.LatencyMaxms > 2001 {
		t.Errorf("an operation lasted %v ms, past its 2 s deadline", m.LatencyMaxms)
	}

	// Without a deadline only the event limit stops it: a CostError at run
	// time (the estimate counted 100 attempts), not a hang.
	sc, err := Parse([]byte(strings.Replace(base, "DEADLINE", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if est := Estimate(sc); est > 1_000_000 {
		t.Fatalf("estimate %d: the test needs it under the limit", est)
	}
	ws := strings.Join(Warnings(sc), "\n")
	if !strings.Contains(ws, "without limit (max_attempts 0) and without a deadline") {
		t.Errorf("warnings %q do not point out the unbounded retries", ws)
	}
	_, err = Run(context.Background(), sc, Options{MaxEvents: 1_000_000})
	var ce *CostError
	if !errors.As(err, &ce) || !errors.Is(err, ErrStopped) || ce.Processed <= 1_000_000 || !IsCost(err) {
		t.Fatalf("err = %v, want a CostError from the event limit", err)
	}
	if !strings.Contains(err.Error(), "processed more than 1000000 events") {
		t.Errorf("message %q", err)
	}
}
