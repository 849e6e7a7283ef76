package view_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/engine/probe"
	"github.com/retrylab/retrylab/shared/view"
)

// The probe of the runaway-cascade built-in's textbook policy, as
// `retrylab probe runaway-cascade --format json` prints it (its capacity
// row left out): unstable without a trigger.
func ExampleProbe() {
	res := &probe.Result{
		Strategy:              "textbook",
		Seeds:                 3,
		Prevents:              true,
		Criterion:             "the overload has ended when the operations started from 10s to 3m0s, on each of 3 seeds, succeed within 1 percentage point of the strategy's own healthy success rate, or make at most 10% more calls per operation than its own healthy amplification with at most 1 percentage point more of them failed fast (healthy: the same seed without the trigger and without the retries' feedback on load-dependent errors), with the load reduction or the workers added from 0s on; the scenario has no trigger, so from the start they keep its operating point out of overload rather than end a storm",
		Healthy:               probe.WindowStats{Success: engine.MinMax{Min: 1, Max: 1}, Amplification: engine.MinMax{Min: 1.128296752055848, Max: 1.1676521698564315}},
		Baseline:              engine.MinMax{Min: 0.16355332214016507, Max: 0.17028929775779447},
		BaselineAmplification: engine.MinMax{Min: 5.974430574454239, Max: 5.99741696117223},
		Finding:               probe.FindingUnstable,
		Remedies: []probe.RemedyResult{
			{Kind: probe.RemedyLoad, Outcome: probe.Found, Enough: 0.11, NotEnough: 0.1, Simulations: 24,
				Change: "the arrival rate times 0.89 from 0s on", Text: "11% less load (between 10% and 11%)"},
			{Kind: probe.RemedyBudget, Outcome: probe.NotFound, NotEnough: 0.01, Simulations: 3,
				Change: `budget {"kind":"ratio","ratio":0.01,"window":"1s"} for strategy "textbook"`, Text: "not found in range (a 1% retry budget does not end it)"},
		},
		Simulations: 60,
		Events:      16874373,
		Summary:     "textbook is unstable without a trigger: the scenario has no trigger for a bad state to outlive, yet at its nominal load the strategy is in the bad state all the same, its operating point itself overloaded: the operations started from 10s to 1m23s (those that live their longest before the judged window ends) succeed, quarter by quarter, 0.45%..4.81%, 0.00%, 0.00%, 0.00% (healthy 100.00% in each); in the last, 0.00% succeed, amplification 6.000, healthy 100.00% succeed, amplification 1.129..1.139. Keeping it out of overload needs 11% less load (between 10% and 11%), or 6 more workers (between 5 and 6) (changes of the load it offers or of the capacity it meets, not the end of a storm); budget: not found in range (a 1% retry budget does not end it).",
	}
	v := view.Probe(res)
	fmt.Println(v.Heading)
	fmt.Println(v.Finding)
	fmt.Println(v.Baseline)
	for _, r := range v.Rows {
		fmt.Printf("%s | %s | %s | %s\n", r.Remedy, r.Finding, r.Change, r.Simulations)
	}
	fmt.Println(v.Cost)
	// Output:
	// What keeps textbook out of overload?
	// unstable
	// Without a remedy, 16.4% to 17% of those operations succeed, with 5.974 to 5.997 calls per operation; healthy (without the trigger), 100%, with 1.128 to 1.168.
	// Less load | 11% less load (between 10% and 11%) | The arrival rate times 0.89 from 0s on | 24
	// A retry budget | Not found in range (a 1% retry budget does not end it) |  | 3
	// 60 simulations, 16,874,373 events.
}

// TestProbeWords: the heading asks what the finding answers, and a
// strategy that recovers by itself is offered no remedy: the freeze of
// 5 s to 15 s in front of a long queue drains by itself with two
// attempts (see the engine's TestProbeSlowToRecover); an outage of a
// dependency whose errors climb with load, with six attempts at 400/s
// (the engine's synthetic storm), does not.
func TestProbeWords(t *testing.T) {
	dep := func(phase string) string {
		return `"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 10000,
			"load_errors": {"window": "1s", "status": 503, "points": [{"load": 500, "rate": 0}, {"load": 800, "rate": 1}]}, "phases": [` + phase + `]}`
	}
	for _, tc := range []struct {
		rate, phase, attempts, heading string
		finding                        probe.Finding
	}{
		{"200", `{"kind": "freeze", "from": "5s", "to": "15s"}`, "2", "Is client in a storm?", probe.FindingRecovering},
		{"400", `{"kind": "outage", "from": "5s", "to": "7s", "status": 503}`, "6", "What ends the storm of client?", probe.FindingMetastable},
	} {
		sc, err := engine.Parse([]byte(`{"version": 1, "name": "words", "seed": 1, "runs": 1,
			"workload": {"clients": 100, "arrival": "poisson", "rate": ` + tc.rate + `, "duration": "60s"}, ` + dep(tc.phase) + `,
			"strategies": [{"name": "client", "max_attempts": ` + tc.attempts + `, "attempt_timeout": "1s", "backoff": {"kind": "constant", "base": "50ms"}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		res, err := probe.Run(context.Background(), sc, probe.Options{MaxWorkers: 20})
		if err != nil {
			t.Fatal(err)
		}
		v := view.Probe(res)
		if res.Finding != tc.finding || v.Finding != string(tc.finding) || v.Heading != tc.heading {
			t.Errorf("%s: finding %s, view %q, heading %q; want %s, %q: %s", tc.phase, res.Finding, v.Finding, v.Heading, tc.finding, tc.heading, v.Summary)
		}
		for _, r := range v.Rows {
			if found := r.Found || r.Change != ""; found != (tc.finding == probe.FindingMetastable) && r.Kind == "load" {
				t.Errorf("%s: %s: %+v", tc.phase, r.Kind, r)
			}
		}
		if tc.finding == probe.FindingRecovering && (!strings.Contains(v.Summary, "back by itself from") || strings.Contains(v.Summary, "needs")) {
			t.Errorf("summary %q", v.Summary)
		}
	}
}

// TestProbeWordsBreakerFailsAll: a strategy whose breaker opens without
// the trigger too and stays open (every call takes 20 ms, slower than
// its 10 ms slow_call) is asked whether it is in a storm, and answered
// that it fails every operation on its own; the baseline says every
// operation is failed fast, healthy too (the engine's
// TestProbeBreakerFailsEveryCall checks the claim against the runs).
func TestProbeWordsBreakerFailsAll(t *testing.T) {
	sc, err := engine.Parse([]byte(`{"version": 1, "name": "breaker", "seed": 1, "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 20, "duration": "40s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 0,
			"phases": [{"kind": "outage", "from": "0s", "to": "6s", "status": 503}]},
		"strategies": [{"name": "always", "max_attempts": 1, "breaker": {"kind": "ratio", "ratio": 0.5, "min_throughput": 10, "window": "2s",
			"break": "1h", "half_open_calls": 1, "slow_call": "10ms", "slow_ratio": 0.5}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := probe.Run(context.Background(), sc, probe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := view.Probe(res)
	if v.Heading != "Is always in a storm?" || v.Finding != string(probe.FindingHealthy) ||
		!strings.HasPrefix(v.Summary, "always is not in a storm: it fails every operation on its own: ") ||
		!strings.Contains(v.Summary, "so there is no storm to end: the failures are the strategy's own, not the dependency's.") {
		t.Errorf("heading %q, finding %s, summary %q", v.Heading, v.Finding, v.Summary)
	}
	if want := "Without a remedy, 0% of those operations succeed, with 0 calls per operation (100% of them failed fast by a breaker, a budget, the pool, a bulkhead or a client-side throttle; healthy, 100%)"; !strings.HasPrefix(v.Baseline, want) {
		t.Errorf("baseline %q\nwant %q…", v.Baseline, want)
	}
	for _, r := range v.Rows {
		if r.Found || r.Change != "" {
			t.Errorf("%s: a remedy for no storm: %+v", r.Kind, r)
		}
	}
}
