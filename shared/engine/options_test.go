package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tests here show the options of the policy model that make presets
// behave as their libraries (issue 15): each compares strategies that
// differ only in the option.

// transitionsOf formats a strategy's breaker transitions as "at to".
func transitionsOf(st *StrategyResult) string {
	var got []string
	for _, tr := range st.Transitions {
		got = append(got, fmt.Sprintf("%.1f %s", tr.AtS, tr.To))
	}
	return strings.Join(got, ",")
}

func TestRetryOnStatusRanges(t *testing.T) {
	for _, c := range []struct {
		status   int
		attempts float64
	}{{509, 3}, {599, 3}, {500, 3}, {501, 1}, {429, 3}, {404, 1}} {
		res := mustRun(t, fmt.Sprintf(`{"version": 1, "name": "ranges",
			"workload": {"clients": 1, "arrival": "burst"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
				"phases": [{"kind": "outage", "from": "0s", "to": "1h", "status": %d}]},
			"strategies": [{"name": "s", "max_attempts": 3,
				"retry_on": {"statuses": [429], "status_ranges": ["500-599"], "except": [501], "connection": true}}]}`, c.status))
		if got := res.Strategies[0].Metrics.Attempts; got != c.attempts {
			t.Errorf("status %d: %v attempts, want %v", c.status, got, c.attempts)
		}
	}
}

func TestRetryAfterModes(t *testing.T) {
	// Every call is answered 503 with Retry-After 1 s (or the pushback
	// -1 ms); the backoff is 2 s, 4 s, 8 s. The operation's latency is
	// the sum of its waits.
	run := func(after, ra string) (attempts, latencyMS float64) {
		t.Helper()
		res := mustRun(t, fmt.Sprintf(`{"version": 1, "name": "retry-after",
			"workload": {"clients": 1, "arrival": "burst"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
				"retry_after": {"statuses": [503], "after": %q},
				"phases": [{"kind": "outage", "from": "0s", "to": "1h", "status": 503}]},
			"strategies": [{"name": "s", "max_attempts": 4, "backoff": {"kind": "exponential", "base": "2s", "multiplier": 2},
				"honor_retry_after": true %s}]}`, after, ra))
		m := res.Strategies[0].Metrics
		return m.Attempts, m.LatencyMaxms
	}
	for _, c := range []struct {
		after, ra string
		attempts  float64
		latencyMS float64
	}{
		{"1s", ``, 4, 2000 + 4000 + 8000},                                           // at_least: the longer
		{"1s", `, "retry_after": {"mode": "at_least"}`, 4, 14000},                   // the same, said
		{"1s", `, "retry_after": {"mode": "replace"}`, 4, 3000},                     // 1 s each
		{"1s", `, "retry_after": {"mode": "replace_and_reset"}`, 4, 3000},           // 1 s each
		{"1s", `, "retry_after": {"mode": "replace", "statuses": [429]}`, 4, 14000}, // not read on 503
		{"-1ms", `, "retry_after": {"mode": "replace_and_reset"}`, 1, 0},            // pushback: stop
		{"-1ms", ``, 4, 14000}, // at_least ignores it
		{"0s", `, "retry_after": {"mode": "replace_and_reset"}`, 4, 0}, // pushback 0: at once
		{"0s", `, "retry_after": {"mode": "replace"}`, 4, 0},           // Retry-After 0: at once
		{"0s", ``, 4, 14000}, // at_least: the backoff
	} {
		a, l := run(c.after, c.ra)
		if a != c.attempts || l != c.latencyMS {
			t.Errorf("after %s%s: %v attempts, %v ms; want %v, %v", c.after, c.ra, a, l, c.attempts, c.latencyMS)
		}
	}
}

func TestRetryAfterResetRestartsTheBackoff(t *testing.T) {
	// 503s carry Retry-After 1 s, 500s none: 503, 503, 500, 500 with a
	// 2 s, 4 s, 8 s backoff. replace_and_reset: 1 s, 1 s, then the backoff
	// from its start, 2 s; replace: 1 s, 1 s, then retry 3's 8 s.
	for _, c := range []struct {
		mode      string
		latencyMS float64
	}{{"replace_and_reset", 1000 + 1000 + 2000}, {"replace", 1000 + 1000 + 8000}} {
		res := mustRun(t, fmt.Sprintf(`{"version": 1, "name": "reset",
			"workload": {"clients": 1, "arrival": "burst"},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
				"retry_after": {"statuses": [503], "after": "1s"},
				"phases": [{"kind": "outage", "from": "0s", "to": "1500ms", "status": 503}, {"kind": "outage", "from": "1500ms", "to": "1h", "status": 500}]},
			"strategies": [{"name": "s", "max_attempts": 4, "backoff": {"kind": "exponential", "base": "2s", "multiplier": 2},
				"retry_on": {"statuses": [500, 503]}, "honor_retry_after": true, "retry_after": {"mode": %q}}]}`, c.mode))
		if m := res.Strategies[0].Metrics; m.Attempts != 4 || m.LatencyMaxms != c.latencyMS {
			t.Errorf("%s: %v attempts, %v ms; want 4, %v", c.mode, m.Attempts, m.LatencyMaxms, c.latencyMS)
		}
	}
}

func TestMaxElapsedIsCheckedBeforeTheWait(t *testing.T) {
	// Attempts take 1 s and wait 1 s: they start at 0, 2, 4, 6 s. With
	// max_elapsed 4.5 s the retry at 6 s is not made (5 s + 1 s > 4.5 s),
	// and the attempt running at 4-5 s is not cut; a deadline of 4.5 s
	// makes the same attempts but ends the last at 4.5 s, cut short. The
	// limit is exceeded only when passed, as cenkalti/backoff's elapsed +
	// next > MaxElapsedTime: with max_elapsed 4 s the retry at 4 s is made.
	res := mustRun(t, `{"version": 1, "name": "max elapsed",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
			"phases": [{"kind": "outage", "from": "0s", "to": "1h", "latency": "1s"}]},
		"strategies": [
			{"name": "elapsed", "max_attempts": 0, "max_elapsed": "4.5s", "backoff": {"kind": "constant", "base": "1s"}},
			{"name": "deadline", "max_attempts": 0, "deadline": "4.5s", "backoff": {"kind": "constant", "base": "1s"}},
			{"name": "elapsed to the retry", "max_attempts": 0, "max_elapsed": "4s", "backoff": {"kind": "constant", "base": "1s"}}
		]}`)
	el, dl := strategy(t, res, "elapsed").Metrics, strategy(t, res, "deadline").Metrics
	if edge := strategy(t, res, "elapsed to the retry").Metrics; edge.Attempts != 3 || edge.LatencyMaxms != 5000 {
		t.Errorf("max_elapsed reached by the retry's start: %v attempts, %v ms; want 3 attempts ending at 5 s", edge.Attempts, edge.LatencyMaxms)
	}
	if el.Attempts != 3 || el.LatencyMaxms != 5000 {
		t.Errorf("max_elapsed: %v attempts, %v ms; want 3 attempts ending at 5 s", el.Attempts, el.LatencyMaxms)
	}
	if dl.Attempts != 3 || dl.LatencyMaxms != 4500 {
		t.Errorf("deadline: %v attempts, %v ms; want 3 attempts, the last cut at 4.5 s", dl.Attempts, dl.LatencyMaxms)
	}
}

// breakerScript runs a breaker over one call per second, each failing
// during the outages given, and returns its transitions.
func breakerScript(t *testing.T, breaker, phases string, seconds int) string {
	t.Helper()
	res := mustRun(t, fmt.Sprintf(`{"version": 1, "name": "breaker",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": %d},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1, "phases": [%s]},
		"strategies": [{"name": "s", "max_attempts": 1, "breaker": %s}]}`, seconds, phases, breaker))
	return transitionsOf(&res.Strategies[0])
}

func TestBreakerKOfN(t *testing.T) {
	// Calls 0, 2, 3 fail: 3 of the last 5 opens at call 3, before 5 calls
	// are in; the ratio 0.6 with a minimum of 5 waits for call 4.
	ph := `{"kind": "outage", "from": "0s", "to": "500ms"}, {"kind": "outage", "from": "2s", "to": "3500ms"}`
	if got := breakerScript(t, `{"kind": "ratio", "failures": 3, "window_calls": 5, "min_throughput": 1, "break": "1h"}`, ph, 6); got != "3.0 open" {
		t.Errorf("3 of 5: %s; want 3.0 open", got)
	}
	if got := breakerScript(t, `{"kind": "ratio", "ratio": 0.6, "window_calls": 5, "min_throughput": 5, "break": "1h"}`, ph, 6); got != "4.0 open" {
		t.Errorf("ratio 0.6 of 5: %s; want 4.0 open", got)
	}
	// A failure leaves the window of the last n: calls 0, 4 and 5 fail;
	// of the last 3, two fail first at call 5 (call 0 has left by then).
	ph = `{"kind": "outage", "from": "0s", "to": "500ms"}, {"kind": "outage", "from": "4s", "to": "5500ms"}`
	if got := breakerScript(t, `{"kind": "ratio", "failures": 2, "window_calls": 3, "min_throughput": 1, "break": "1h"}`, ph, 7); got != "5.0 open" {
		t.Errorf("2 of 3: %s; want 5.0 open", got)
	}
}

func TestBreakerBreakEnd(t *testing.T) {
	// Opens at 0 s for 2 s: the call at exactly 2 s is a trial when the
	// end is inclusive, refused when strict.
	ph := `{"kind": "outage", "from": "0s", "to": "500ms"}`
	if got := breakerScript(t, `{"kind": "consecutive", "failures": 1, "break": "2s"}`, ph, 4); got != "0.0 open,2.0 half_open,2.0 closed" {
		t.Errorf("inclusive: %s", got)
	}
	if got := breakerScript(t, `{"kind": "consecutive", "failures": 1, "break": "2s", "break_end": "strict"}`, ph, 4); got != "0.0 open,3.0 half_open,3.0 closed" {
		t.Errorf("strict: %s", got)
	}
}

func TestBreakerHalfOpenDecisions(t *testing.T) {
	// Opens at 0 s for 1 s; trials at 1, 2, 3, 4 s, the one at 2 s failing.
	ph := `{"kind": "outage", "from": "0s", "to": "500ms"}, {"kind": "outage", "from": "2s", "to": "2500ms"}`
	for _, c := range []struct{ opts, want string }{
		// The first failure reopens (the default).
		{``, "0.0 open,1.0 half_open,2.0 open,3.0 half_open"},
		// 2 failures of 4 reopen, decided early: 3 successes close it.
		{`, "half_open_failures": 2`, "0.0 open,1.0 half_open,4.0 closed"},
		// The same once all 4 trials are in.
		{`, "half_open_failures": 2, "half_open_decision": "all_trials"`, "0.0 open,1.0 half_open,4.0 closed"},
		// 1 failure of 4 reopens, but only once all are in.
		{`, "half_open_decision": "all_trials"`, "0.0 open,1.0 half_open,4.0 open"},
	} {
		br := `{"kind": "consecutive", "failures": 1, "break": "1s", "half_open_calls": 4` + c.opts + `}`
		if got := breakerScript(t, br, ph, 6); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %s; want %s…", br, got, c.want)
		}
	}
}

func TestBreakerSlowCalls(t *testing.T) {
	// Service takes 2 s from 5 s on (a latency phase): calls slower than
	// 1 s are slow, all of them succeeding. Half of the last 4 being slow
	// opens the breaker at the second slow call's end.
	res := mustRun(t, `{"version": 1, "name": "slow",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 10},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "500ms"}, "queue_capacity": 1,
			"phases": [{"kind": "latency", "from": "5s", "to": "1h", "factor": 4}]},
		"strategies": [
			{"name": "slow", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 1, "window_calls": 4, "min_throughput": 4, "slow_call": "1s", "slow_ratio": 0.5, "break": "1h"}},
			{"name": "plain", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 1, "window_calls": 4, "min_throughput": 4, "break": "1h"}}
		]}`)
	if got := transitionsOf(strategy(t, res, "slow")); got != "8.0 open" {
		t.Errorf("slow calls: %s; want 8.0 open (calls at 5 and 6 s end at 7 and 8 s)", got)
	}
	if got := transitionsOf(strategy(t, res, "plain")); got != "" {
		t.Errorf("without slow calls: %s; want none", got)
	}
}

func TestMaxElapsedBoundsUnlimitedAttempts(t *testing.T) {
	// max_attempts 0 with max_elapsed is not a retry without limit: no
	// warning says so.
	sc, err := Parse([]byte(`{"version": 1, "name": "elapsed",
		"workload": {"clients": 1, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 1},
		"strategies": [{"name": "s", "max_attempts": 0, "max_elapsed": "15m", "attempt_timeout": "1s",
			"backoff": {"kind": "exponential", "base": "500ms", "multiplier": 1.5, "max": "1m"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range Warnings(sc) {
		if strings.Contains(w, "retries without limit") {
			t.Errorf("warning %q for a policy that max_elapsed bounds", w)
		}
	}
}

func TestBreakerWindowBuckets(t *testing.T) {
	// Calls every 500 ms; the ones at 0.5 s and 2 s fail. At 2 s the exact
	// window of 2 s, (0 s, 2 s], holds 2 failures of 4 and opens; counted
	// in whole seconds (resilience4j's TIME_BASED window) it holds seconds
	// 1 and 2 only, 1 failure of 3, and stays closed.
	run := func(buckets string) string {
		t.Helper()
		res := mustRun(t, fmt.Sprintf(`{"version": 1, "name": "buckets",
			"workload": {"clients": 1, "arrival": "uniform", "rate": 2, "operations": 8},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "0s"}, "queue_capacity": 1,
				"phases": [{"kind": "outage", "from": "500ms", "to": "600ms"}, {"kind": "outage", "from": "2s", "to": "2100ms"}]},
			"strategies": [{"name": "s", "max_attempts": 1,
				"breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 3, "window": "2s", "break": "1h"%s}}]}`, buckets))
		return transitionsOf(&res.Strategies[0])
	}
	if got := run(``); got != "2.0 open" {
		t.Errorf("exact: %q; want 2.0 open", got)
	}
	if got := run(`, "window_buckets": "exact"`); got != "2.0 open" {
		t.Errorf("exact, said: %q; want 2.0 open", got)
	}
	if got := run(`, "window_buckets": "epoch_seconds"`); got != "" {
		t.Errorf("epoch_seconds: %q; want no transition", got)
	}
}

func TestBreakerAutoHalfOpen(t *testing.T) {
	// Opens at 0 s; calls every second. Lazily it turns half-open at the
	// first call after the break; with auto_half_open at the break's end,
	// and a call at exactly the end is a trial even with break_end strict.
	ph := `{"kind": "outage", "from": "0s", "to": "500ms"}`
	for _, c := range []struct{ breaker, want string }{
		{`"break": "1500ms", "break_end": "strict"`, "0.0 open,2.0 half_open,2.0 closed"},
		{`"break": "1500ms", "break_end": "strict", "auto_half_open": true`, "0.0 open,1.5 half_open,2.0 closed"},
		{`"break": "2s", "break_end": "strict"`, "0.0 open,3.0 half_open,3.0 closed"},
		{`"break": "2s", "break_end": "strict", "auto_half_open": true`, "0.0 open,2.0 half_open,2.0 closed"},
		{`"break": "2s", "auto_half_open": true`, "0.0 open,2.0 half_open,2.0 closed"},
	} {
		br := `{"kind": "consecutive", "failures": 1, ` + c.breaker + `}`
		if got := breakerScript(t, br, ph, 4); got != c.want {
			t.Errorf("%s: %s; want %s", br, got, c.want)
		}
	}
}

func TestBreakerOpenMultiplier(t *testing.T) {
	// Calls every second; the dependency is down until 7.5 s and again
	// from 10 s to 10.5 s. Each failed trial reopens the breaker: with
	// open_multiplier 2 and max_open 3s it stays open 1, 2, 3, 3 s
	// (resilience4j's exponential wait in the open state, capped); once it
	// closes, the next opening lasts the break again.
	ph := `{"kind": "outage", "from": "0s", "to": "7500ms"}, {"kind": "outage", "from": "10s", "to": "10500ms"}`
	for _, c := range []struct{ breaker, want string }{
		{`"break": "1s"`, "0.0 open,1.0 half_open,1.0 open,2.0 half_open,2.0 open,3.0 half_open,3.0 open,4.0 half_open,4.0 open," +
			"5.0 half_open,5.0 open,6.0 half_open,6.0 open,7.0 half_open,7.0 open,8.0 half_open,8.0 closed,10.0 open,11.0 half_open,11.0 closed"},
		{`"break": "1s", "open_multiplier": 2, "max_open": "3s"`, "0.0 open,1.0 half_open,1.0 open,3.0 half_open,3.0 open,6.0 half_open,6.0 open," +
			"9.0 half_open,9.0 closed,10.0 open,11.0 half_open,11.0 closed"},
		{`"break": "1s", "open_multiplier": 2`, "0.0 open,1.0 half_open,1.0 open,3.0 half_open,3.0 open,7.0 half_open,7.0 open," +
			"15.0 half_open,15.0 closed"},
		{`"break": "1500ms", "open_multiplier": 2, "max_open": "3s", "auto_half_open": true`, "0.0 open,1.5 half_open,2.0 open,5.0 half_open,5.0 open," +
			"8.0 half_open,8.0 closed,10.0 open,11.5 half_open,12.0 closed"},
	} {
		br := `{"kind": "consecutive", "failures": 1, ` + c.breaker + `}`
		if got := breakerScript(t, br, ph, 16); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", br, got, c.want)
		}
	}
}

func TestOpenWait(t *testing.T) {
	br := &Breaker{Break: Duration(500 * time.Millisecond), OpenMultiplier: 1.5, MaxOpen: Duration(2 * time.Second)}
	var got []time.Duration
	for n := 1; n <= 6; n++ {
		got = append(got, time.Duration(openWait(br, n)))
	}
	want := []time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond, 1687500 * time.Microsecond, 2 * time.Second, 2 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("waits %v; want %v", got, want)
	}
}
