package probe

import (
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// breakerJSON is the newcomer's case of issue #29: a breaker that fails
// every call. One call every 50 ms for 40 s, the dependency down for the
// first 6 s; the breaker opens when 10 calls in 2 s fail half the time.
// "stuck" stays open for an hour once the outage opened it: after the
// trigger it fails every operation fast, healthy it never opens. "always"
// also counts every call slower than 10 ms a failure, and every call
// takes 20 ms: it opens without the trigger too and fails every
// operation from then on. "cycling" is always with a break of 1 s: it
// opens and lets a trial call through again and again, so it fails some
// of its operations fast, healthy too, and no other.
const breakerJSON = `{
  "version": 1, "name": "breaker fails every call", "seed": 1, "runs": 1,
  "workload": {"clients": 1, "arrival": "uniform", "rate": 20, "duration": "40s"},
  "dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 0,
    "phases": [{"kind": "outage", "from": "0s", "to": "6s", "status": 503}]},
  "strategies": [
    {"name": "stuck", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "2s", "break": "1h", "half_open_calls": 1}},
    {"name": "always", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "2s", "break": "1h", "half_open_calls": 1, "slow_call": "10ms", "slow_ratio": 0.5}},
    {"name": "cycling", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "2s", "break": "1s", "half_open_calls": 1, "slow_call": "10ms", "slow_ratio": 0.5}}
  ]
}`

// windowCounts adds up, from the series of sc's strategy name run alone
// (without its dependency's phases when healthy), the operations that
// end in [from, to): those that succeed, fail and are failed fast, and
// the calls that reach the dependency.
func windowCounts(t *testing.T, sc *engine.Scenario, name string, healthy bool, from, to engine.Duration) (ok, failed, fast, calls int64) {
	t.Helper()
	one := *sc
	if healthy {
		one.Dependency.Phases = nil
	}
	sr := runOne(t, &one, name).Strategies[0].Series
	return bucketSum(sr, sr.Successes, from, to), bucketSum(sr, sr.Failures, from, to), bucketSum(sr, sr.FastFailed, from, to), bucketSum(sr, sr.Attempts, from, to)
}

// TestProbeBreakerFailsEveryCall: a strategy whose breaker fails every
// call is told so, and each sentence is checked against the runs it
// describes. "always" is not said to be "at its own baseline …; the
// floor is the dependency's own errors" (the dependency answers every
// call it gets), and "stuck" is not called metastable without a word on
// what holds it there.
func TestProbeBreakerFailsEveryCall(t *testing.T) {
	sc, err := engine.Parse([]byte(breakerJSON))
	if err != nil {
		t.Fatal(err)
	}

	res := mustProbe(t, sc, Options{Strategy: "always"})
	want := "not in a storm: it fails every operation on its own: after the trigger, as in its healthy run without the trigger, " + protection +
		" fails every operation fast (0.00% success, 100.00% failed fast, healthy 100.00%), and none of them makes a call to the dependency; so there is no storm to end: the failures are the strategy's own, not the dependency's"
	if res.Finding != FindingHealthy || res.NoStorm != want || res.Summary != "always is "+want+"." {
		t.Errorf("always: finding %s\nno storm %q\nwant     %q", res.Finding, res.NoStorm, want)
	}
	for _, r := range res.Remedies {
		if r.Outcome == Found || r.Outcome == NotFound {
			t.Errorf("always: %s %s: a remedy looked for where there is no storm", r.Kind, r.Outcome)
		}
	}
	// The claim, against the runs: in the judged window, with the
	// trigger and without, no operation succeeds, every one is failed
	// fast, and no call reaches the dependency.
	for _, healthy := range []bool{false, true} {
		ok, failed, fast, calls := windowCounts(t, sc, "always", healthy, res.WindowFrom, res.WindowTo)
		if ok != 0 || failed == 0 || fast != failed || calls != 0 {
			t.Errorf("always (healthy %v): from %s to %s %d succeed, %d fail, %d fast, %d calls; want every operation failed fast, no call", healthy, res.WindowFrom, res.WindowTo, ok, failed, fast, calls)
		}
	}

	res = mustProbe(t, sc, Options{Strategy: "stuck"})
	if res.Finding != FindingMetastable || !strings.HasSuffix(res.Persistence, "; in that last quarter "+protection+" fails every operation fast and no call reaches the dependency, so what keeps it in the bad state is the client refusing to call, not a retry storm's load on the dependency") {
		t.Errorf("stuck: finding %s: %s", res.Finding, res.Persistence)
	}
	// Against the run: in the span's last quarter every operation is
	// failed fast and no call reaches the dependency, which healthy
	// succeeds on every one; and, as the sentence implies, neither less
	// load nor more workers end it.
	from, to := res.WindowFrom+3*(res.SpanTo-res.WindowFrom)/4, res.SpanTo
	if ok, failed, fast, calls := windowCounts(t, sc, "stuck", false, from, to); ok != 0 || failed == 0 || fast != failed || calls != 0 {
		t.Errorf("stuck: from %s to %s %d succeed, %d fail, %d fast, %d calls; want every operation failed fast, no call", from, to, ok, failed, fast, calls)
	}
	if ok, failed, _, _ := windowCounts(t, sc, "stuck", true, from, to); ok == 0 || failed != 0 {
		t.Errorf("stuck healthy: from %s to %s %d succeed, %d fail; want every one to succeed", from, to, ok, failed)
	}
	for _, k := range []RemedyKind{RemedyLoad, RemedyCapacity} {
		if i := slices.IndexFunc(res.Remedies, func(r RemedyResult) bool { return r.Kind == k }); i < 0 || res.Remedies[i].Outcome != NotFound {
			t.Errorf("stuck: %s: %+v; want not found", k, res.Remedies)
		}
	}

	// A breaker that fails some operations fast, healthy too, and fails
	// no other: the floor is its own, not the dependency's errors.
	res = mustProbe(t, sc, Options{Strategy: "cycling"})
	floor := "; the floor is " + protection + " failing "
	if res.Finding != FindingHealthy || !strings.Contains(res.NoStorm, floor) || !strings.HasSuffix(res.NoStorm, " of the operations fast, not the dependency's errors)") || res.Healthy.FastFailed.Min == 0 || res.Healthy.FastFailed.Max == 1 {
		t.Errorf("cycling: finding %s, healthy %+v: %s", res.Finding, res.Healthy, res.NoStorm)
	}
	if ok, failed, fast, _ := windowCounts(t, sc, "cycling", true, res.WindowFrom, res.WindowTo); ok == 0 || failed == 0 || fast != failed {
		t.Errorf("cycling healthy: %d succeed, %d fail, %d fast; want some failures, every one failed fast", ok, failed, fast)
	}

	// Where the dependency's errors are the floor and nothing fails
	// fast, it still says so; a retry storm's load is no refusal to call.
	if res := mustProbe(t, stormScenario(t), Options{}); strings.Contains(res.Summary, "refusing to call") || strings.Contains(res.Summary, "on its own") {
		t.Errorf("the synthetic storm: %s", res.Summary)
	}
}
