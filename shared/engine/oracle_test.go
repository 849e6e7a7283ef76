package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The oracles: figures published with the experiments of the built-ins
// (docs/CATALOGUE.md names each source) that a faithful model must reproduce
// exactly.

func mustRun(t testing.TB, js string) *Result {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, js)
	}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func strategy(t testing.TB, res *Result, name string) *StrategyResult {
	t.Helper()
	for i := range res.Strategies {
		if res.Strategies[i].Name == name {
			return &res.Strategies[i]
		}
	}
	t.Fatalf("no strategy %q", name)
	return nil
}

// alwaysFails is a dependency that answers every call with 503 at once.
const alwaysFails = `{"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0,
	"phases": [{"kind": "outage", "from": "0s", "to": "24h", "status": 503}]}`

func TestLayeredRetriesMultiply(t *testing.T) {
	// layered-retries (from "Retries That Fail Better"): each layer calls the
	// one below up to n times; the database always fails.
	layers := func(n, attempts int) string {
		var ls []string
		for range n - 1 {
			ls = append(ls, fmt.Sprintf(`{"max_attempts": %d}`, attempts))
		}
		return "[" + strings.Join(ls, ",") + "]"
	}
	res := mustRun(t, `{"version": 1, "name": "layered",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": `+alwaysFails+`,
		"strategies": [
			{"name": "3x3", "max_attempts": 3, "layers": `+layers(3, 3)+`},
			{"name": "top-only", "max_attempts": 3, "layers": `+layers(3, 1)+`},
			{"name": "5x3", "max_attempts": 3, "layers": `+layers(5, 3)+`},
			{"name": "3x4", "max_attempts": 4, "layers": `+layers(3, 4)+`}
		]}`)
	for name, want := range map[string]float64{"3x3": 27, "top-only": 3, "5x3": 243, "3x4": 64} {
		m := strategy(t, res, name).Metrics
		if m.DependencyCalls != want {
			t.Errorf("%s: %v database calls, want %v", name, m.DependencyCalls, want)
		}
		if m.Amplification != want {
			t.Errorf("%s: amplification %v, want %v", name, m.Amplification, want)
		}
	}
}

func TestSREBudgetCapsRetries(t *testing.T) {
	// sre-retry-budget (from "Retries That Fail Better"): 10,000 requests whose every attempt fails, at most 3 attempts.
	res := mustRun(t, `{"version": 1, "name": "sre",
		"workload": {"clients": 100, "arrival": "uniform", "rate": 1000, "operations": 10000},
		"dependency": `+alwaysFails+`,
		"strategies": [
			{"name": "no-budget", "max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"}},
			{"name": "sre", "max_attempts": 3, "backoff": {"kind": "constant", "base": "10ms"},
			 "budget": {"kind": "ratio", "ratio": 0.1}}
		]}`)
	if got := strategy(t, res, "no-budget").Metrics.Attempts; got != 30000 {
		t.Errorf("no budget: %v attempts, want 30000", got)
	}
	m := strategy(t, res, "sre").Metrics
	if m.Attempts != 11000 {
		t.Errorf("SRE budget: %v attempts, want 11000", m.Attempts)
	}
	if m.Retries != 1000 || m.GaveUpBudget != m.RetriesDenied || m.RetriesDenied == 0 {
		t.Errorf("SRE budget: %v retries, %v denied, %v operations given up for the budget; want 1000 retries and every denial ending its operation",
			m.Retries, m.RetriesDenied, m.GaveUpBudget)
	}
}

func TestThunderingHerdWithoutJitter(t *testing.T) {
	// thundering-herd-jitter (from "Reliability Patterns"): 1,000 clients
	// fail at t=0 and retry 4 times with waits 100, 200, 400, 800 ms. Without
	// jitter each round lands in one 10 ms slot.
	res := mustRun(t, `{"version": 1, "name": "herd",
		"workload": {"clients": 1000, "arrival": "burst"},
		"dependency": `+alwaysFails+`,
		"strategies": [
			{"name": "no-jitter", "max_attempts": 5, "backoff": {"kind": "exponential", "base": "100ms"}},
			{"name": "full", "max_attempts": 5, "backoff": {"kind": "exponential", "base": "100ms"}, "jitter": {"kind": "full"}},
			{"name": "equal", "max_attempts": 5, "backoff": {"kind": "exponential", "base": "100ms"}, "jitter": {"kind": "equal"}},
			{"name": "decorrelated", "max_attempts": 5, "backoff": {"kind": "exponential", "base": "100ms", "max": "800ms"}, "jitter": {"kind": "decorrelated"}}
		]}`)
	nj := strategy(t, res, "no-jitter").Metrics
	if nj.RetryPeakPer10ms != 1000 {
		t.Errorf("no jitter: retry peak %v per 10 ms, want 1000", nj.RetryPeakPer10ms)
	}
	if nj.Retries != 4000 {
		t.Errorf("no jitter: %v retries, want 4000", nj.Retries)
	}
	for _, name := range []string{"full", "equal", "decorrelated"} {
		m := strategy(t, res, name).Metrics
		if m.RetryPeakPer10ms >= 300 {
			t.Errorf("%s jitter: retry peak %v per 10 ms, want far below 1000", name, m.RetryPeakPer10ms)
		}
		if m.Retries != 4000 {
			t.Errorf("%s jitter: %v retries, want 4000", name, m.Retries)
		}
	}
}

func TestBreakerTimeline(t *testing.T) {
	// breaker-timeline (from "The Retry Policy That Took Down the Entire
	// Cluster"): one call every 50 ms for 12 s; the dependency is down for
	// the first 6 s; ≥ 10 calls with ≥ 50% failures in a 2 s window open the
	// breaker for 2 s; one trial call; samples cleared at every decision.
	res := mustRun(t, `{"version": 1, "name": "breaker",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 20, "duration": "12s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 0,
			"phases": [{"kind": "outage", "from": "0s", "to": "6s"}]},
		"strategies": [{"name": "breaker", "max_attempts": 1,
			"breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "2s", "break": "2s", "half_open_calls": 1}}]}`)
	st := strategy(t, res, "breaker")
	var got []string
	for _, tr := range st.Transitions {
		got = append(got, fmt.Sprintf("%.2f %s>%s", tr.AtS, tr.From, tr.To))
	}
	want := []string{
		"0.45 closed>open",
		"2.45 open>half_open", "2.45 half_open>open",
		"4.45 open>half_open", "4.45 half_open>open",
		"6.45 open>half_open", "6.45 half_open>closed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("transitions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	m := st.Metrics
	if m.Operations != 240 || m.DependencyCalls != 123 || m.FastFailed != 117 {
		t.Errorf("operations %v, calls sent %v, failed fast %v; want 240, 123, 117", m.Operations, m.DependencyCalls, m.FastFailed)
	}
}

func TestTimeBudgetWarning(t *testing.T) {
	// time-budget (from "Retries That Fail Better"): 4 × 2 s + 3.5 s of
	// waits = 11.5 s > 10 s.
	sc, err := Parse([]byte(`{"version": 1, "name": "budget",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": ` + alwaysFails + `,
		"strategies": [{"name": "s", "max_attempts": 4, "attempt_timeout": "2s", "deadline": "10s",
			"backoff": {"kind": "exponential", "base": "500ms"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ws := Warnings(sc)
	if len(ws) != 1 || !strings.Contains(ws[0], "worst case 11.5s") || !strings.Contains(ws[0], "3.5s of waits") {
		t.Errorf("warnings = %q, want one about a worst case of 11.5s with 3.5s of waits", ws)
	}
}
