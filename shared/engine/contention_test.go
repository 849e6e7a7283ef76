package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

const contention = `, "contention": {}`

func TestContentionTwoWritersOneConflict(t *testing.T) {
	// Two clients at once, 10 ms each way, an instant server: both read
	// version 0 at 10 ms, both writes reach it at 30 ms. The first served
	// commits; the second finds version 1 and is answered 409 at 40 ms. It
	// waits 5 ms, reads again (55 ms), writes (75 ms, commits) and hears of
	// it at 85 ms. Work: three writes; the reads are not calls.
	res := mustRun(t, `{"version": 1, "name": "two writers",
		"workload": {"clients": 2, "arrival": "burst"},
		"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 0`+network(tenMs)+contention+`},
		"strategies": [{"name": "retry", "max_attempts": 0, "backoff": {"kind": "constant", "base": "5ms"}, "retry_on": {"statuses": [409]}},
			{"name": "once", "max_attempts": 1, "retry_on": {"statuses": [409]}}]}`)
	m := strategy(t, res, "retry").Metrics
	if m.DependencyCalls != 3 || m.Retries != 1 || m.Succeeded != 2 {
		t.Errorf("calls %v, retries %v, succeeded %v; want 3, 1 and 2", m.DependencyCalls, m.Retries, m.Succeeded)
	}
	if m.LatencyP50ms != 40 || m.LatencyMaxms != 85 || m.SettleS != 0.085 {
		t.Errorf("latencies %v..%v ms, settle %v s; want 40, 85 and 0.085", m.LatencyP50ms, m.LatencyMaxms, m.SettleS)
	}
	if m.Rejections != 0 || m.Duplicates != 0 {
		t.Errorf("rejections %v, duplicates %v: a conflict is neither", m.Rejections, m.Duplicates)
	}
	// Not retried, the conflict fails the operation with its status.
	if m := strategy(t, res, "once").Metrics; m.Succeeded != 1 || m.Failed != 1 || m.DependencyCalls != 2 || m.LatencyMaxms != 40 {
		t.Errorf("once: succeeded %v, failed %v, calls %v, latency max %v ms; want 1, 1, 2 and 40", m.Succeeded, m.Failed, m.DependencyCalls, m.LatencyMaxms)
	}

	// Without a network the read and the write are at once: the two calls
	// read version 0 at 0; one worker serves the first (commits at 10 ms)
	// and then the queued second, which conflicts at 20 ms, with a
	// configured status.
	res = mustRun(t, `{"version": 1, "name": "no network",
		"workload": {"clients": 2, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 1, "contention": {"status": 412}},
		"strategies": [{"name": "once", "max_attempts": 1, "retry_on": {"statuses": [409]}}]}`)
	if m := strategy(t, res, "once").Metrics; m.Succeeded != 1 || m.Failed != 1 || m.LatencyMaxms != 20 || m.GaveUpNotRetryable != 1 {
		t.Errorf("no network: succeeded %v, failed %v, latency max %v ms, not retryable %v; want 1, 1, 20 and 1 (412 is not in retry_on)",
			m.Succeeded, m.Failed, m.LatencyMaxms, m.GaveUpNotRetryable)
	}
}

func TestContentionOrderIsByCommit(t *testing.T) {
	// A reads first (at 10 ms) but its write, reaching the dependency at
	// 30 ms during a latency phase, is served for 50 ms and would commit at
	// 80. B reads later (15 ms), writes at 35 ms, after the phase, and
	// commits at 45. The first commit wins: B succeeds (50 ms after its
	// start) and A conflicts at 80 although it read and wrote first; A's
	// retry reads at 100, writes at 120, commits at 130 and is back at 140.
	res := mustRun(t, `{"version": 1, "name": "order",
		"workload": {"clients": 2, "arrival": "uniform", "rate": 200, "operations": 2},
		"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 0,
			"phases": [{"kind": "latency", "from": "0s", "to": "32ms", "factor": 5}]`+network(tenMs)+contention+`},
		"strategies": [{"name": "retry", "max_attempts": 2, "backoff": {"kind": "none"}, "retry_on": {"statuses": [409]}}]}`)
	m := strategy(t, res, "retry").Metrics
	if m.Succeeded != 2 || m.DependencyCalls != 3 || m.Retries != 1 {
		t.Fatalf("succeeded %v, calls %v, retries %v; want 2, 3 and 1", m.Succeeded, m.DependencyCalls, m.Retries)
	}
	if m.LatencyP50ms != 50 || m.LatencyMaxms != 140 {
		t.Errorf("latencies %v..%v ms; want B at 50 and A at 140", m.LatencyP50ms, m.LatencyMaxms)
	}
}

func TestContentionDeterministic(t *testing.T) {
	// Normal travel times, many writers, unlimited attempts: the same seed
	// gives the same bytes, another seed other numbers.
	js := func(seed string) string {
		return `{"version": 1, "name": "many writers", "seed": ` + seed + `, "runs": 2,
		"workload": {"clients": 30, "arrival": "burst"},
		"dependency": {"workers": 30, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 0,
			"network": {"request": {"kind": "normal", "mean": "10ms", "stddev": "2ms"}, "answer": {"kind": "normal", "mean": "10ms", "stddev": "2ms"}}` + contention + `},
		"strategies": [{"name": "full", "max_attempts": 0, "backoff": {"kind": "exponential", "base": "10ms", "max": "2s"}, "jitter": {"kind": "full"}, "retry_on": {"statuses": [409]}}]}`
	}
	enc := func(seed string) []byte {
		sc, err := Parse([]byte(js(seed)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := enc("7"), enc("7"), enc("8")
	if !bytes.Equal(a, b) {
		t.Error("the same seed gave different bytes")
	}
	if bytes.Equal(a, c) {
		t.Error("another seed gave the same bytes")
	}
	res := mustRun(t, js("7"))
	m := strategy(t, res, "full").Metrics
	// Every writer commits exactly once: 30 successes, and more writes
	// than that (conflicts), each attempt one write.
	if m.Succeeded != 30 || m.DependencyCalls <= 30 || m.DependencyCalls != m.Attempts {
		t.Errorf("succeeded %v, calls %v, attempts %v; want 30, more than 30 and calls = attempts", m.Succeeded, m.DependencyCalls, m.Attempts)
	}
}

func TestContentionStatusValidated(t *testing.T) {
	sc, err := Decode([]byte(`{"version": 1, "name": "bad",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0, "contention": {"status": 99}},
		"strategies": [{"name": "s", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Validate(); err == nil || !bytes.Contains([]byte(err.Error()), []byte("dependency.contention.status")) {
		t.Errorf("a status of 99 gave %v, want an error at dependency.contention.status", err)
	}
}

func TestContentionNoWriteAfterGivingUp(t *testing.T) {
	// The read's answer is back at 20 ms; an attempt timeout of 15 ms has
	// given up by then, so no write is sent: no call, no commit. With 25 ms
	// the write leaves at 20 ms, before the timeout, and reaches the
	// dependency at 30 ms, after it: it commits, as wasted work.
	res := mustRun(t, `{"version": 1, "name": "give up",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 0`+network(tenMs)+contention+`},
		"strategies": [{"name": "short", "max_attempts": 1, "attempt_timeout": "15ms"},
			{"name": "long", "max_attempts": 1, "attempt_timeout": "25ms"}]}`)
	if m := strategy(t, res, "short").Metrics; m.DependencyCalls != 0 || m.Failed != 1 || m.WastedWork != 0 {
		t.Errorf("short: calls %v, failed %v, wasted %v; want 0, 1 and 0", m.DependencyCalls, m.Failed, m.WastedWork)
	}
	if m := strategy(t, res, "long").Metrics; m.DependencyCalls != 1 || m.Failed != 1 || m.WastedWork != 1 {
		t.Errorf("long: calls %v, failed %v, wasted %v; want 1, 1 and 1", m.DependencyCalls, m.Failed, m.WastedWork)
	}
}
