package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// scriptScenario is one client making ops operations 1 s apart, each with
// up to 4 attempts and no backoff, against a dependency serving in 10 ms
// whose script is script (a JSON object).
func scriptScenario(ops int, script string) string {
	return fmt.Sprintf(`{"version": 1, "name": "script",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": %d},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 0,
			"script": %s},
		"strategies": [{"name": "s", "max_attempts": 4, "attempt_timeout": "50ms"}]}`, ops, script)
}

// An opTrace is what one operation met: how long it lasted.
type opTrace struct {
	end time.Duration
}

// traceScript runs strategy 0 of js, whose operations do not overlap, and
// returns each operation's trace, in order.
func traceScript(t *testing.T, js string) []opTrace {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var traces []opTrace
	simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what == "end" {
			traces = append(traces, opTrace{end: time.Duration(s.now - s.ops[id].start)})
		}
	})
	return traces
}

// TestScriptAnswersInOrder: the k-th call reaching the dependency gets the
// k-th answer, after its latency; then the dependency serves as usual.
func TestScriptAnswersInOrder(t *testing.T) {
	js := scriptScenario(4, `{"answers": [
		{"status": 503, "latency": "5ms"}, {"status": 503, "latency": "7ms"}, {"status": 200, "latency": "3ms"},
		{"error": "connection", "latency": "2ms"}, {"status": 200},
		{"status": 500}]}`)
	res := mustRun(t, js)
	m := res.Strategies[0].Metrics
	// op 0: 503, 503, 200 (15 ms); op 1: connection, 200 (2 ms); op 2:
	// 500, not retried; op 3: served in 10 ms.
	if m.Attempts != 7 || m.Succeeded != 3 || m.DependencyCalls != 7 {
		t.Errorf("attempts %v, succeeded %v, dependency calls %v; want 7, 3, 7", m.Attempts, m.Succeeded, m.DependencyCalls)
	}
	got := traceScript(t, js)
	want := []time.Duration{15 * time.Millisecond, 2 * time.Millisecond, 0, 10 * time.Millisecond}
	for i, tr := range got {
		if tr.end != want[i] {
			t.Errorf("operation %d lasted %v, want %v", i, tr.end, want[i])
		}
	}
}

// TestScriptThen: after the list, "repeat" starts it over and "last"
// repeats its last answer; "serve" (the default) serves.
func TestScriptThen(t *testing.T) {
	for _, tc := range []struct {
		then            string
		attempts, ok    float64
		lastOpDurations []time.Duration
	}{
		// Answers 503 (1 ms), 200 (2 ms): op 0 takes both.
		{"serve", 4, 3, []time.Duration{3 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}},
		{"repeat", 6, 3, []time.Duration{3 * time.Millisecond, 3 * time.Millisecond, 3 * time.Millisecond}},
		{"last", 4, 3, []time.Duration{3 * time.Millisecond, 2 * time.Millisecond, 2 * time.Millisecond}},
	} {
		js := scriptScenario(3, fmt.Sprintf(`{"then": %q, "answers": [{"status": 503, "latency": "1ms"}, {"status": 200, "latency": "2ms"}]}`, tc.then))
		m := mustRun(t, js).Strategies[0].Metrics
		if m.Attempts != tc.attempts || m.Succeeded != tc.ok {
			t.Errorf("then %q: %v attempts, %v succeeded; want %v, %v", tc.then, m.Attempts, m.Succeeded, tc.attempts, tc.ok)
		}
		var ends []time.Duration
		for _, tr := range traceScript(t, js) {
			ends = append(ends, tr.end)
		}
		if !slices.Equal(ends, tc.lastOpDurations) {
			t.Errorf("then %q: operations lasted %v, want %v", tc.then, ends, tc.lastOpDurations)
		}
	}
}

// TestScriptPerOperation: operation n's k-th attempt gets
// operations[n][k], whatever the earlier operations did; a timeout is a
// scripted latency longer than the attempt timeout, and "last" repeats an
// operation's last answer.
func TestScriptPerOperation(t *testing.T) {
	js := scriptScenario(5, `{"then": "last", "operations": [
		[{"status": 200}],
		[{"status": 503}, {"status": 503}, {"status": 200, "latency": "4ms"}],
		[{"status": 503}],
		[{"status": 200, "latency": "60ms"}, {"status": 200, "latency": "1ms"}],
		[]]}`)
	res := mustRun(t, js)
	m := res.Strategies[0].Metrics
	// Attempts: 1 + 3 + 4 + 2 + 1 (served).
	if m.Attempts != 11 || m.Succeeded != 4 || m.Failed != 1 {
		t.Errorf("attempts %v, succeeded %v, failed %v; want 11, 4, 1", m.Attempts, m.Succeeded, m.Failed)
	}
	var ends []time.Duration
	for _, tr := range traceScript(t, js) {
		ends = append(ends, tr.end)
	}
	want := []time.Duration{0, 4 * time.Millisecond, 0, 51 * time.Millisecond, 10 * time.Millisecond}
	if !slices.Equal(ends, want) {
		t.Errorf("operations lasted %v, want %v", ends, want)
	}
}

// TestScriptPastTheOperations: an operation past the list of operations
// is served as usual, as one with an empty list is, whatever then says
// ("last" gives an operation's own last answer, not another's).
func TestScriptPastTheOperations(t *testing.T) {
	js := scriptScenario(3, `{"then": "last", "operations": [[{"status": 503}], []]}`)
	m := mustRun(t, js).Strategies[0].Metrics
	// Op 0: 503 four times; op 1 (empty) and op 2 (past the list) served.
	if m.Attempts != 6 || m.Succeeded != 2 || m.Failed != 1 || m.DependencyCalls != 6 {
		t.Errorf("attempts %v, succeeded %v, failed %v, calls %v; want 6, 2, 1, 6", m.Attempts, m.Succeeded, m.Failed, m.DependencyCalls)
	}
	var ends []time.Duration
	for _, tr := range traceScript(t, js) {
		ends = append(ends, tr.end)
	}
	if want := []time.Duration{0, 10 * time.Millisecond, 10 * time.Millisecond}; !slices.Equal(ends, want) {
		t.Errorf("operations lasted %v, want %v", ends, want)
	}
}

// TestScriptPerDependency: each dependency answers from its own script,
// and a dependency without one serves.
func TestScriptPerDependency(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "two scripts",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 2,
			"plan": [{"calls": [{"dependency": "a"}, {"dependency": "b"}]}, {"calls": [{"dependency": "c"}]}]},
		"dependencies": [
			{"name": "a", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0,
				"script": {"then": "last", "answers": [{"status": 503}]}},
			{"name": "b", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0,
				"script": {"answers": [{"status": 429}, {"status": 200, "latency": "3ms"}]}},
			{"name": "c", "workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0}],
		"strategies": [{"name": "s", "max_attempts": 3, "fallbacks": [{"call": "a"}]}]}`)
	sr := &res.Strategies[0]
	a, b, c := callNamed(t, sr, "a"), callNamed(t, sr, "b"), callNamed(t, sr, "c")
	// a always fails (3 attempts each) and falls back; b fails once, then
	// succeeds, then is served; c is served.
	if a.Attempts != 6 || a.FellBack != 2 || b.Attempts != 3 || b.Succeeded != 2 || c.Attempts != 2 || c.Succeeded != 2 {
		t.Errorf("a %+v\nb %+v\nc %+v", a, b, c)
	}
	if sr.Metrics.Degraded != 2 {
		t.Errorf("degraded %v, want 2", sr.Metrics.Degraded)
	}
}

// TestScriptReplacesPhases: a scripted answer comes before outages,
// errors and freezes; an unscripted call meets them.
func TestScriptReplacesPhases(t *testing.T) {
	js := strings.Replace(scriptScenario(2, `{"answers": [{"status": 200, "latency": "1ms"}]}`),
		`"queue_capacity": 0,`, `"queue_capacity": 0, "phases": [{"kind": "outage", "from": "0s", "to": "1h", "status": 500}],`, 1)
	m := mustRun(t, js).Strategies[0].Metrics
	if m.Succeeded != 1 || m.Attempts != 2 {
		t.Errorf("succeeded %v, attempts %v; want the scripted success and the outage's 500", m.Succeeded, m.Attempts)
	}
}

func TestScriptValidation(t *testing.T) {
	long := strings.Repeat(`{"status": 200},`, MaxScript) + `{"status": 200}`
	for _, tc := range []struct{ script, want string }{
		{`{}`, `dependency.script.answers: is empty; give answers`},
		{`{"answers": [{"status": 200}], "operations": [[]]}`, `dependency.script.operations: is given together with answers`},
		{`{"answers": [{"status": 200}], "then": "again"}`, `dependency.script.then: "again" is not one of "serve", "repeat", "last"`},
		{`{"answers": [{"status": 200}, {}]}`, `dependency.script.answers[1].status: is missing; give a status`},
		{`{"answers": [{"status": 700}]}`, `dependency.script.answers[0].status: 700 is not an HTTP status; allowed 100..599`},
		{`{"operations": [[], [{"status": 200}, {"error": "reset"}]]}`, `dependency.script.operations[1][1].error: "reset" is not one of "connection"`},
		{`{"answers": [{"error": "connection", "status": 503}]}`, `dependency.script.answers[0].status: 503 is given together with error "connection"`},
		{`{"answers": [{"status": 200, "latency": "25h"}]}`, `dependency.script.answers[0].latency: "25h0m0s" is longer than the maximum 24h0m0s`},
		{`{"answers": [{"status": 200, "latency": "-1ms"}]}`, `dependency.script.answers[0].latency: "-1ms" is negative`},
		{`{"answers": [` + long + `]}`, `dependency.script: lists 100001 answers; at most 100000 are allowed`},
		{`{"answers": [{"status": 200}], "extra": 1}`, `dependency.script.extra`},
	} {
		_, err := Parse([]byte(scriptScenario(1, tc.script)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80s: err = %v, want %q", tc.script, err, tc.want)
		}
	}
}

// TestScriptEstimate: the span bound counts a scripted latency, and the
// estimate of events is at least what a run processes.
func TestScriptEstimate(t *testing.T) {
	js := scriptScenario(3, `{"then": "repeat", "answers": [{"status": 503, "latency": "10h"}, {"status": 200}]}`)
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if _, hi := estimateSpan(sc); hi < float64(10*time.Hour) {
		t.Errorf("span bound %v, below a scripted latency of 10h", time.Duration(hi))
	}
	res := mustRun(t, js)
	if est := Estimate(sc); est < res.Events {
		t.Errorf("estimate %d below the %d events processed", est, res.Events)
	}
}

// TestScriptWarning: a script in arrival order replayed by several
// strategies is pointed out; a script per operation, or one strategy, is
// not.
func TestScriptWarning(t *testing.T) {
	warn := func(js string) string {
		sc, err := Parse([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(Warnings(sc), "\n")
	}
	two := func(js string) string {
		return strings.Replace(js, `"strategies": [{"name": "s", "max_attempts": 4, "attempt_timeout": "50ms"}]`,
			`"strategies": [{"name": "s", "max_attempts": 4, "attempt_timeout": "50ms"}, {"name": "t", "max_attempts": 2, "attempt_timeout": "50ms"}]`, 1)
	}
	answers := scriptScenario(2, `{"answers": [{"status": 503}]}`)
	operations := scriptScenario(2, `{"operations": [[{"status": 503}]]}`)
	if w := warn(two(answers)); !strings.Contains(w, "dependency.script answers calls in arrival order") {
		t.Errorf("no warning for answers replayed by two strategies: %q", w)
	}
	for _, js := range []string{answers, two(operations)} {
		if w := warn(js); strings.Contains(w, "script") {
			t.Errorf("a warning where none is due: %q", w)
		}
	}
}
