package scenarios

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// runSeries runs sc with its time series (the first seed's).
func runSeries(t *testing.T, sc *engine.Scenario) *engine.Result {
	t.Helper()
	res, err := engine.Run(context.Background(), sc, engine.Options{MaxEvents: 4 * maxEvents})
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	return res
}

// successesIn sums the successes of st's series (operations that ended in
// success, by their end) in the buckets that lie within [from, to).
func successesIn(st *engine.StrategyResult, from, to time.Duration) (n int) {
	s := st.Series
	b := time.Duration(s.BucketMS * float64(time.Millisecond))
	for i, v := range s.Successes {
		if at := time.Duration(i) * b; at >= from && at+b <= to {
			n += int(v)
		}
	}
	return n
}

// notRecovered checks that st is judged not recovered under load: recovery
// applies, recovered is 0, and there is no recovery time to show, only
// the words.
func notRecovered(t *testing.T, st *engine.StrategyResult) {
	t.Helper()
	m := &st.Metrics
	if !m.Recovered.Applies() || m.Recovered != 0 {
		t.Errorf("%s: recovered %v, want 0 (it applies)", st.Name, float64(m.Recovered))
	}
	if m.RecoveryS.Applies() {
		t.Errorf("%s: recovery time %v s, want none", st.Name, float64(m.RecoveryS))
	}
	if w, ok := m.Missing("recovery_s"); !ok || w != engine.NotRecovered {
		t.Errorf("%s: recovery_s reads %q, want %q", st.Name, w, engine.NotRecovered)
	}
	if _, ok := st.Spread["recovery_s"]; ok {
		t.Errorf("%s: a recovery time without a time has a spread", st.Name)
	}
}

// TestFailoverNotRecoveredUnderLoad: in failover-incident, every-layer
// has no success from 40 s to the end of arrivals, the database saturated
// by its retries. Operations that start near the end succeed once arrivals
// stop and the backlog drains: they must not make it "recovered", however
// long the workload runs.
func TestFailoverNotRecoveredUnderLoad(t *testing.T) {
	for _, d := range []time.Duration{2 * time.Minute, 6 * time.Minute} {
		t.Run(d.String(), func(t *testing.T) {
			sc := builtin(t, "failover-incident")
			sc.Workload.Duration = engine.Duration(d)
			res := runSeries(t, sc)
			st := strategyResult(t, res, "every-layer")
			// The claim first: no success while the load runs, and
			// successes again only once arrivals have stopped.
			if n := successesIn(st, 40*time.Second, d); n != 0 {
				t.Fatalf("every-layer: %d successes from 40 s to the end of arrivals at %v; the scenario no longer shows a storm", n, d)
			}
			if n := successesIn(st, d, 2*d); n == 0 {
				t.Errorf("every-layer: no success after arrivals stop at %v: the drain this test is about did not happen", d)
			}
			notRecovered(t, st)
		})
	}
}

// TestRunawayNotRecoveredUnderLoad: runaway-cascade's textbook policy
// collapses within seconds; its successes after that come from the drain
// once arrivals stop at 3 min. The built-in has no fault window (the load
// alone is the trigger: recovery does not apply), so the test judges
// recovery from 1 s on (report.recovery_from), as if a trigger ended then:
// textbook does not recover while the load arrives, and shows no time.
func TestRunawayNotRecoveredUnderLoad(t *testing.T) {
	sc := builtin(t, "runaway-cascade")
	if res := run(t, sc); strategyResult(t, res, "textbook").Metrics.Recovered.Applies() {
		t.Error("textbook: recovery applies to the built-in, which has no fault that ends")
	}
	from := engine.Duration(time.Second)
	sc.Report.RecoveryFrom = &from
	sc.Runs, sc.Seeds = 1, nil
	res := runSeries(t, sc)
	st := strategyResult(t, res, "textbook")
	end := time.Duration(sc.Workload.Duration)
	under, after := successesIn(st, 30*time.Second, end), successesIn(st, end, 2*end)
	if under != 0 || after == 0 {
		t.Fatalf("textbook: %d successes from 30 s to the end of arrivals, %d after; want none, then some (the drain)", under, after)
	}
	notRecovered(t, st)
}

// TestRecoveredUnderLoad: E03-B's strategies recover once capacity is
// back at 15 s. Each keeps its recovery time; the window from that time
// on is inside the judged span (its operations, bounded by the 5 s
// deadline, end before arrivals stop at 30 s), and operations keep
// succeeding after it while arrivals continue.
func TestRecoveredUnderLoad(t *testing.T) {
	sc := builtin(t, "e03b-synchronized-recovery")
	res := runSeries(t, sc)
	faultEnd := 15 * time.Second
	arrivalsEnd := time.Duration(sc.Workload.Duration)
	for _, st := range res.Strategies {
		m := &st.Metrics
		if m.Recovered != 1 || !m.RecoveryS.Applies() {
			t.Errorf("%s: recovered %v, recovery time %v: want 1 and a time", st.Name, float64(m.Recovered), float64(m.RecoveryS))
			continue
		}
		deadline := time.Duration(sc.Strategies[0].Deadline)
		at := faultEnd + time.Duration(float64(m.RecoveryS)*float64(time.Second))
		if at+time.Second > arrivalsEnd-deadline {
			t.Errorf("%s: recovered at %v, its window not inside the judged span (to %v)", st.Name, at, arrivalsEnd-deadline)
		}
		// Successes in every second from then until arrivals stop.
		for from := at; from+time.Second <= arrivalsEnd; from += time.Second {
			if successesIn(&st, from, from+time.Second) == 0 {
				t.Errorf("%s: recovered at %v, but no success in [%v, %v) while arrivals continue", st.Name, at, from, from+time.Second)
			}
		}
		if w, ok := m.Missing("recovery_s"); ok {
			t.Errorf("%s: recovery_s reads %q, want its time", st.Name, w)
		}
	}
}

// TestRecoveryNotJudged: when arrivals stop too soon after the fault for
// any operation's whole horizon to fit (E03-B ending at 17 s, 2 s after
// the fault, with a 5 s deadline), recovery is not judged: it does not
// apply, rather than being 0 or a time.
func TestRecoveryNotJudged(t *testing.T) {
	sc := builtin(t, "e03b-synchronized-recovery")
	sc.Workload.Duration = engine.Duration(17 * time.Second)
	sc.Runs, sc.Seeds = 1, nil
	for _, st := range run(t, sc).Strategies {
		if st.Metrics.Recovered.Applies() || st.Metrics.RecoveryS.Applies() {
			t.Errorf("%s: recovered %v, recovery time %v; want n/a", st.Name, float64(st.Metrics.Recovered), float64(st.Metrics.RecoveryS))
		}
		if w, _ := st.Metrics.Missing("recovery_s"); w != "n/a" {
			t.Errorf("%s: recovery_s reads %q, want n/a", st.Name, w)
		}
	}
}

// TestSearchRanksNotRecoveredLast: a search minimising recovery_s from
// failover-incident's every-layer, over the retries of its top two
// layers: the candidates that keep retrying at every layer do not recover
// under load and have no recovery time, which must rank them worst, not
// as the 0 s a missing value reads as. The recommendation recovers, and
// the result is valid JSON (no NaN).
func TestSearchRanksNotRecoveredLast(t *testing.T) {
	sc := builtin(t, "failover-incident")
	sc.Search = &engine.Search{
		Strategy: "every-layer",
		Knobs: []engine.Knob{
			{Path: "max_attempts", Values: []json.RawMessage{json.RawMessage("1"), json.RawMessage("4")}},
			{Path: "layers[0].max_attempts", Values: []json.RawMessage{json.RawMessage("1"), json.RawMessage("4")}},
		},
		Objectives: []engine.Objective{{Metric: "recovery_s", Goal: engine.GoalMin}},
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{MaxEvents: maxEvents, NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatalf("the result does not marshal: %v", err)
	}
	rec := res.Search.Recommendation
	if rec == nil {
		t.Fatalf("no recommendation: %s", res.Search.Note)
	}
	if !rec.Metrics.RecoveryS.Applies() || rec.Metrics.Recovered != 1 {
		t.Errorf("recommended %v: recovered %v, recovery time %v; want a recovery", rec.Settings, float64(rec.Metrics.Recovered), float64(rec.Metrics.RecoveryS))
	}
	for _, p := range res.Search.Frontier {
		if !p.Metrics.RecoveryS.Applies() {
			t.Errorf("frontier point %v has no recovery time, yet others recover", p.Settings)
		}
	}
}
