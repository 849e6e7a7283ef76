package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// autoscaleScenario is one client making ops operations evenly at rate
// per second, one attempt each with a timeout of an hour, against
// workers serving in service (a constant), whose autoscaler is
// autoscale (a JSON object); its series are in 1 s buckets.
func autoscaleScenario(rate float64, ops, workers int, service, autoscale string) string {
	return fmt.Sprintf(`{"version": 1, "name": "autoscale",
		"workload": {"clients": 1, "arrival": "uniform", "rate": %g, "operations": %d},
		"dependency": {"workers": %d, "service_time": {"kind": "constant", "mean": %q}, "queue_capacity": 1000,
			"autoscale": %s},
		"strategies": [{"name": "s", "max_attempts": 1, "attempt_timeout": "1h"}],
		"report": {"series_bucket": "1s"}}`, rate, ops, workers, service, autoscale)
}

// TestDesiredWorkers: the HPA's arithmetic, ceil(workers × ratio)
// outside the tolerance, within min and max.
func TestDesiredWorkers(t *testing.T) {
	am := &autoscaleModel{target: 0.8, tol: 0.1, min: 2, max: 20}
	for _, tc := range []struct {
		cur   int
		total float64
		want  int
	}{
		{10, 8, 10},   // ratio 1: at the target (8/0.8 is 10.000000000000002 in floats)
		{10, 8.5, 10}, // ratio 1.0625: within the tolerance
		{10, 9, 12},   // ratio 1.125: ceil(11.25)
		{10, 7.2, 10}, // ratio 0.9: at the tolerance's edge, kept
		{10, 4, 5},    // ratio 0.5: ceil(5)
		{10, 0.4, 2},  // ratio 0.05: ceil(0.5) is 1, min 2
		{10, 10, 13},  // ratio 1.25, every worker busy: ceil(12.5)
		{16, 16, 20},  // ratio 1.25: ceil(20)
		{18, 18, 20},  // ratio 1.25: ceil(22.5), max 20
	} {
		if got := desiredWorkers(am, tc.cur, tc.total); got != tc.want {
			t.Errorf("%d workers, %g busy on average: %d recommended, want %d", tc.cur, tc.total, got, tc.want)
		}
	}
}

// TestDesiredWorkersToleranceEdgeIsInside: a ratio whose distance from 1
// is the tolerance plus the 1e-9 of slack is still inside it: the
// workers stay. A tolerance of 0.249999999 puts that edge at exactly 0.25
// in floats, so ratios 1.25 and 0.75 (6.25 and 3.75 busy of 10 at a
// target of 0.5) sit on it; 1.26 and 0.74 are past it.
func TestDesiredWorkersToleranceEdgeIsInside(t *testing.T) {
	am := &autoscaleModel{target: 0.5, tol: 0.249999999, min: 1, max: 20}
	for _, tc := range []struct {
		total float64
		want  int
	}{
		{6.25, 10}, // ratio 1.25: on the edge, kept
		{3.75, 10}, // ratio 0.75: on the edge, kept
		{6.3, 13},  // ratio 1.26: ceil(12.6)
		{3.7, 8},   // ratio 0.74: ceil(7.4)
	} {
		if got := desiredWorkers(am, 10, tc.total); got != tc.want {
			t.Errorf("10 workers, %g busy on average, tolerance %g: %d recommended, want %d", tc.total, am.tol, got, tc.want)
		}
	}
}

// TestStabilize: a scale-down takes the highest recommendation of the
// window, the current one included, never more than the workers it has.
func TestStabilize(t *testing.T) {
	sc := &scaleState{recs: []recommendation{{at: 0, workers: 10}}}
	const w = 30 // the window, in s
	steps := []struct{ at, cur, rec, want int }{
		{10, 10, 6, 10}, // the start's 10 is in the window (-20, 10]
		{20, 10, 8, 10},
		{30, 10, 4, 8},  // 10 at 0 is out of (0, 30]: 8 at 20 is the highest
		{40, 8, 12, 12}, // up: at once
		{50, 12, 5, 12}, // 12 at 40
		{70, 12, 3, 5},  // 12 at 40 is out of (40, 70]: 5 at 50
		{80, 5, 2, 3},   // 3 at 70
		{120, 3, 1, 1},  // only itself in (90, 120]
	}
	for _, c := range steps {
		if got := sc.stabilize(int64(c.at), w, c.cur, c.rec); got != c.want {
			t.Errorf("at %d s, %d workers, %d recommended: %d, want %d", c.at, c.cur, c.rec, got, c.want)
		}
	}
}

// TestAutoscaleUpWarmUpAndMax: 2 workers of 1 s each under 4 operations a
// second are always busy. The evaluation at 10 s (the first period's end)
// sees 2 busy of 2, ratio 2 at a target of 0.5: ceil(2 × 2) = 4, capped at
// max 3. The third worker serves from 15 s (a warm-up of 5 s). At 20 s
// the mean is (4 × 2 + 6 × 3)/10 = 2.6 busy of 3, which recommends 6,
// capped at 3: no change.
func TestAutoscaleUpWarmUpAndMax(t *testing.T) {
	js := autoscaleScenario(4, 80, 2, "1s", `{"metric": "utilization", "target": 0.5, "period": "10s",
		"warm_up": "5s", "min": 1, "max": 3, "scale_down_stabilization": "0s"}`)
	sr := &mustRun(t, js).Strategies[0]
	if len(sr.Scaling) != 1 || sr.Scaling[0] != (ScalingEvent{AtS: 10, From: 2, To: 3}) {
		t.Fatalf("scaling %+v, want one event at 10 s, 2 to 3", sr.Scaling)
	}
	ws := sr.Series.Workers
	if len(ws) != 1 {
		t.Fatalf("%d worker series, want 1", len(ws))
	}
	// Bucket i is [i s, i+1 s): its value is the last in it.
	for _, c := range []struct{ bucket, serving, target int32 }{{9, 2, 2}, {10, 2, 3}, {14, 2, 3}, {15, 3, 3}, {25, 3, 3}} {
		if s, g := ws[0].Serving[c.bucket], ws[0].Target[c.bucket]; s != c.serving || g != c.target {
			t.Errorf("in [%d s, %d s): %d serving, %d in all; want %d, %d", c.bucket, c.bucket+1, s, g, c.serving, c.target)
		}
	}
	// The queue is never empty: every worker serving is busy when a call
	// arrives.
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	before, after := 0, 0
	simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what != "call" {
			return
		}
		_, ds := s.dep(0)
		if s.now < int64(15*time.Second) {
			before = max(before, ds.busy)
		} else {
			after = max(after, ds.busy)
		}
	})
	if before != 2 || after != 3 {
		t.Errorf("at most %d busy before 15 s and %d after, want 2 and 3: a worker warming up serves nothing", before, after)
	}
}

// TestAutoscaleCancelledWarmUpCountsNoMore: workers removed while they
// warm up never serve and no longer count as the autoscaler's. 2 workers
// of 100 ms under 4 operations a second while a latency phase makes the
// service 1 s until 10 s are busy at every sample: at 10 s the
// autoscaler goes from 2 to 4 (ratio 2, max 4), the 2 new ones warming
// up until 35 s. The backlog clears by 11 s, and the arrivals at whole
// seconds come after each sample: at 20 s the mean is at most 0.2 busy
// of 4, ceil(4 × 0.1) = 1, so both warming workers are cancelled and 1
// of the 2 serving goes. At 30 s the autoscaler counts 1 worker, idle,
// which min 1 keeps: no event. The warm-up's end at 35 s adds no worker.
func TestAutoscaleCancelledWarmUpCountsNoMore(t *testing.T) {
	js := autoscaleScenario(4, 160, 2, "100ms", `{"metric": "utilization", "target": 0.5, "period": "10s",
		"warm_up": "25s", "min": 1, "max": 4, "scale_down_stabilization": "0s"},
		"phases": [{"kind": "latency", "factor": 10, "from": "0s", "to": "10s"}]`)
	sr := &mustRun(t, js).Strategies[0]
	want := []ScalingEvent{{AtS: 10, From: 2, To: 4}, {AtS: 20, From: 4, To: 1}}
	if fmt.Sprint(sr.Scaling) != fmt.Sprint(want) {
		t.Fatalf("scaling %+v, want %+v", sr.Scaling, want)
	}
	ws := sr.Series.Workers[0]
	if len(ws.Serving) < 38 {
		t.Fatalf("%d buckets of workers, want the run's 40 s", len(ws.Serving))
	}
	for b := range ws.Serving {
		serving, target := int32(2), int32(2)
		switch {
		case b >= 20:
			serving, target = 1, 1
		case b >= 10:
			target = 4
		}
		if ws.Serving[b] != serving || ws.Target[b] != target {
			t.Errorf("in [%d s, %d s): %d serving, %d in all; want %d, %d", b, b+1, ws.Serving[b], ws.Target[b], serving, target)
		}
	}
}

// opEnds runs strategy 0 of js and returns when each operation started
// and ended, by the order they ended.
func opEnds(t *testing.T, js string) (starts, ends []time.Duration) {
	t.Helper()
	sc, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	simPlan(t, sc, 0, func(s *sim, what string, id int32) {
		if what == "end" {
			starts = append(starts, time.Duration(s.ops[id].start))
			ends = append(ends, time.Duration(s.now))
		}
	})
	return starts, ends
}

// TestAutoscaleDownFinishesWork: 4 workers of 30 s take the operations of
// 0..3 s; those of 4..13 s queue. The evaluation at 10 s sees a mean of
// (0+0+0+0+1+2+3+4+5+6)/10 = 2.1 queued for 4 workers, far below the
// target of 100 per worker: ceil(4 × 2.1/4/100) = 1. The 3 workers
// removed finish their requests (at 30, 31, 32 and 33 s, all four
// succeed), and the next request starts only when busy falls below the
// one worker left: at 33 s, ending at 63 s.
func TestAutoscaleDownFinishesWork(t *testing.T) {
	js := autoscaleScenario(1, 14, 4, "30s", `{"metric": "queue_per_worker", "target": 100, "period": "10s",
		"min": 1, "max": 4, "scale_down_stabilization": "0s"}`)
	sr := &mustRun(t, js).Strategies[0]
	if len(sr.Scaling) != 1 || sr.Scaling[0] != (ScalingEvent{AtS: 10, From: 4, To: 1}) {
		t.Fatalf("scaling %+v, want one event at 10 s, 4 to 1", sr.Scaling)
	}
	if m := sr.Metrics; m.Succeeded != 14 {
		t.Errorf("%v succeeded, want all 14", m.Succeeded)
	}
	_, ends := opEnds(t, js)
	want := []time.Duration{30, 31, 32, 33, 63, 93}
	for i, w := range want {
		if ends[i] != w*time.Second {
			t.Errorf("operation %d ended at %v, want %v", i, ends[i], w*time.Second)
		}
	}
}

// TestAutoscaleStabilization: the same run with a scale-down window of
// 25 s keeps 4 workers while the window holds a recommendation of 4 (the
// start's, at 0): the evaluations at 10 and 20 s recommend 1 and change
// nothing; at 30 s every recommendation of (5 s, 30 s] is 1. By then the
// first request has ended and a fourth worker took the next (30 s to
// 60 s), so the requests end at 30..33, 60 and 90 s.
func TestAutoscaleStabilization(t *testing.T) {
	js := autoscaleScenario(1, 14, 4, "30s", `{"metric": "queue_per_worker", "target": 100, "period": "10s",
		"min": 1, "max": 4, "scale_down_stabilization": "25s"}`)
	sr := &mustRun(t, js).Strategies[0]
	if len(sr.Scaling) != 1 || sr.Scaling[0] != (ScalingEvent{AtS: 30, From: 4, To: 1}) {
		t.Fatalf("scaling %+v, want one event at 30 s, 4 to 1", sr.Scaling)
	}
	_, ends := opEnds(t, js)
	want := []time.Duration{30, 31, 32, 33, 60, 90}
	for i, w := range want {
		if ends[i] != w*time.Second {
			t.Errorf("operation %d ended at %v, want %v", i, ends[i], w*time.Second)
		}
	}
}

// TestAutoscaleEvaluationTimes: evaluations fall on the multiples of the
// period, even one that is not a whole number of samples' nanoseconds
// (7 s/10 is, 1ms + 3ns/10 is not).
func TestAutoscaleEvaluationTimes(t *testing.T) {
	for _, period := range []time.Duration{7 * time.Second, time.Millisecond + 3} {
		js := autoscaleScenario(4, 80, 2, "1s", fmt.Sprintf(`{"metric": "utilization", "target": 0.5, "period": %q,
			"min": 1, "max": 1000, "scale_down_stabilization": "0s"}`, Duration(period)))
		sc, err := Parse([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		m := compile(sc)
		s := newSim(t.Context(), m, &m.strategies[0], m.seeds[0], 50_000_000)
		var evals []int64
		if err := s.run(); err != nil {
			t.Fatal(err)
		}
		_, ds := s.dep(0)
		for _, r := range ds.scale.recs {
			evals = append(evals, r.at)
		}
		// The window of 0 keeps the last evaluation's only.
		if len(evals) != 1 || evals[0]%int64(period) != 0 || evals[0] == 0 {
			t.Errorf("period %v: last evaluation at %v, want a positive multiple of the period", period, evals)
		}
	}
}

// TestAutoscaleErrorsNameFieldValueAndRule: each bad setting of an
// autoscaler is refused at its path, with its value and what is allowed.
func TestAutoscaleErrorsNameFieldValueAndRule(t *testing.T) {
	const ok = `"autoscale": {"metric": "utilization", "target": 0.7, "period": "15s", "min": 1, "max": 4}`
	for _, tc := range []struct {
		desc, old, new, path, message string
	}{
		{"unknown metric", `"utilization"`, `"cpu"`, "dependency.autoscale.metric", `"cpu" is not one of "utilization", "queue_per_worker"`},
		{"utilization over 1", `"target": 0.7`, `"target": 70`, "dependency.autoscale.target", "70 is out of range; a utilization target is a share of the workers busy, above 0 and at most 1"},
		{"zero queue target", `"metric": "utilization", "target": 0.7`, `"metric": "queue_per_worker", "target": 0`, "dependency.autoscale.target", "0 is out of range; a target of queued requests per worker is above 0"},
		{"no period", `"period": "15s", `, ``, "dependency.autoscale.period", "\"0s\" is shorter than 1ms; the evaluation period is 1ms..24h0m0s"},
		{"period past a day", `"period": "15s"`, `"period": "24h0m0.000000001s"`, "dependency.autoscale.period", "is longer than the maximum 24h0m0s"},
		{"period under 1ms", `"period": "15s"`, `"period": "999.999µs"`, "dependency.autoscale.period", "is shorter than 1ms"},
		{"negative tolerance", `"max": 4`, `"max": 4, "tolerance": -0.01`, "dependency.autoscale.tolerance", "-0.01 is out of range"},
		{"queue target past the queue's maximum", `"metric": "utilization", "target": 0.7`, `"metric": "queue_per_worker", "target": 10000001`, "dependency.autoscale.target", "is out of range; a target of queued requests per worker is above 0 and at most 10000000"},
		{"max backends past 8", `"min": 1, "max": 4}`, `"min": 1, "max": 9}, "backends": {"count": 2}`, "dependency.autoscale.max", "9 is out of range; with backends the autoscaler adds and removes backends behind the balancer, and max counts backends, 1..8"},
		{"min backends 0", `"min": 1, "max": 4}`, `"min": 0, "max": 4}, "backends": {"count": 2}`, "dependency.autoscale.min", "0 is out of range; with backends"},
		{"negative warm-up", `"min": 1`, `"warm_up": "-1s", "min": 1`, "dependency.autoscale.warm_up", "is negative; a duration is at least 0s"},
		{"min 0", `"min": 1`, `"min": 0`, "dependency.autoscale.min", "0 is out of range 1..100000"},
		{"max below min", `"min": 1, "max": 4`, `"min": 2, "max": 1`, "dependency.autoscale.max", "1 is below min 2; max must be at least min"},
		{"workers outside", `"min": 1, "max": 4`, `"min": 3, "max": 4`, "dependency.autoscale.min", "3 and max 4 do not hold workers 2; the dependency starts with its workers, which must be within min..max"},
		{"tolerance of 1", `"max": 4`, `"max": 4, "tolerance": 1`, "dependency.autoscale.tolerance", "1 is out of range; the tolerance is at least 0 and below 1 (0.1 when not given)"},
		{"negative window", `"max": 4`, `"max": 4, "scale_down_stabilization": "-5s"`, "dependency.autoscale.scale_down_stabilization", "is negative"},
		{"unknown field", `"max": 4`, `"max": 4, "cooldown": "5s"`, "dependency.autoscale.cooldown", "is not a known field"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			base := strings.Replace(valid, `"queue_capacity": 5`, `"queue_capacity": 5, `+ok, 1)
			if _, err := Parse([]byte(base)); err != nil {
				t.Fatalf("the base scenario: %v", err)
			}
			doc := strings.Replace(base, tc.old, tc.new, 1)
			if doc == base {
				t.Fatalf("the case does not change the scenario")
			}
			_, err := Parse([]byte(doc))
			for _, e := range AsErrors(err) {
				if e.Path == tc.path && strings.Contains(e.Error(), tc.message) {
					return
				}
			}
			t.Errorf("want an error at %s containing %q; got:\n%v", tc.path, tc.message, err)
		})
	}
	// Each range's edges are allowed.
	for _, edge := range []struct{ old, new string }{
		{`"period": "15s"`, `"period": "1ms"`},
		{`"period": "15s"`, `"period": "24h"`},
		{`"target": 0.7`, `"target": 1`},
		{`"metric": "utilization", "target": 0.7`, `"metric": "queue_per_worker", "target": 10000000`},
		{`"max": 4`, `"max": 4, "tolerance": 0`},
		{`"min": 1, "max": 4`, `"min": 2, "max": 2`},
		{`"min": 1, "max": 4}`, `"min": 1, "max": 8}, "backends": {"count": 2}`},
		{`"min": 1, "max": 4}`, `"min": 8, "max": 8}, "backends": {"count": 8}`},
	} {
		base := strings.Replace(valid, `"queue_capacity": 5`, `"queue_capacity": 5, `+ok, 1)
		doc := strings.Replace(base, edge.old, edge.new, 1)
		if doc == base {
			t.Fatalf("%s: the edge does not change the scenario", edge.new)
		}
		if _, err := Parse([]byte(doc)); err != nil {
			t.Errorf("%s: %v", edge.new, err)
		}
	}
}

// autoscalePartScenario is a run whose autoscaler scales up and down on
// every seed, for the parts' tests: Poisson arrivals that double from
// 20 s to 40 s against 4 workers of 50 ms.
func autoscalePartScenario(t *testing.T) *Scenario {
	t.Helper()
	sc, err := Parse([]byte(`{"version": 1, "name": "autoscale parts", "runs": 2,
		"workload": {"clients": 50, "arrival": "poisson", "rate": 60, "duration": "1m",
			"load": [{"kind": "step", "from": "20s", "to": "40s", "factor": 2}]},
		"dependency": {"workers": 4, "service_time": {"kind": "exponential", "mean": "50ms"}, "queue_capacity": 50,
			"autoscale": {"metric": "utilization", "target": 0.6, "period": "5s", "warm_up": "3s", "min": 2, "max": 12,
				"scale_down_stabilization": "10s"}},
		"strategies": [{"name": "a", "max_attempts": 3, "attempt_timeout": "500ms"}, {"name": "b", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestAutoscaleCapacityPhase: a capacity phase sets the workers, cancels
// those warming up and holds the autoscaler; after it the autoscaler
// goes on from the phase's workers. 2 workers of 1 s under 4 operations
// a second are always busy: at 10 s, ceil(2 × 2/2/0.5) = 4 (2 warming
// up until 15 s); the phase from 12 s to 30 s sets 5, cancelling the 2
// warming up (5 serve from 12 s, and still 5 after 15 s); the evaluation
// at 20 s does nothing; the phase's end at 30 s comes before the
// evaluation at 30 s, which sees 5 busy of 5: 10, capped at max 6,
// serving from 35 s.
func TestAutoscaleCapacityPhase(t *testing.T) {
	js := autoscaleScenario(4, 200, 2, "1s", `{"metric": "utilization", "target": 0.5, "period": "10s",
		"warm_up": "5s", "min": 1, "max": 6, "scale_down_stabilization": "0s"}`)
	js = strings.Replace(js, `"queue_capacity": 1000,`, `"queue_capacity": 1000, "phases": [{"kind": "capacity", "from": "12s", "to": "30s", "workers": 5}],`, 1)
	sr := &mustRun(t, js).Strategies[0]
	want := []ScalingEvent{{AtS: 10, From: 2, To: 4}, {AtS: 12, From: 4, To: 5, Phase: true}, {AtS: 30, From: 5, To: 6}}
	if len(sr.Scaling) < len(want) {
		t.Fatalf("scaling %+v, want %+v first", sr.Scaling, want)
	}
	for i, w := range want {
		if sr.Scaling[i] != w {
			t.Errorf("scaling event %d: %+v, want %+v", i, sr.Scaling[i], w)
		}
	}
	ws := sr.Series.Workers[0]
	for _, c := range []struct{ bucket, serving, target int32 }{{11, 2, 4}, {12, 5, 5}, {15, 5, 5}, {29, 5, 5}, {34, 5, 6}, {35, 6, 6}} {
		if s, g := ws.Serving[c.bucket], ws.Target[c.bucket]; s != c.serving || g != c.target {
			t.Errorf("in [%d s, %d s): %d serving, %d in all; want %d, %d", c.bucket, c.bucket+1, s, g, c.serving, c.target)
		}
	}
}

// TestEstimateCountsAutoscaleSamples: an autoscaler samples its metric
// AutoscaleSamples times a period for as long as the simulation runs, and
// these samples can outnumber the operations many times over (here 100
// operations over 10 s, sampled every 0.1 ms: 100,000 samples a run): the
// estimate grows by at least the events they add.
func TestEstimateCountsAutoscaleSamples(t *testing.T) {
	fixed := autoscaleScenario(10, 100, 2, "10ms", `{"metric": "utilization", "target": 0.5, "period": "1ms", "min": 2, "max": 2}`)
	without := strings.Replace(fixed, `,
			"autoscale": {"metric": "utilization", "target": 0.5, "period": "1ms", "min": 2, "max": 2}`, ``, 1)
	if without == fixed {
		t.Fatal("the test's scenario has no autoscaler to take out")
	}
	est0, events0 := costRun(t, without)
	est, events := costRun(t, fixed)
	if events-events0 < 50_000 {
		t.Fatalf("the autoscaler added %d events (%d with it, %d without): the test needs its samples to dominate", events-events0, events, events0)
	}
	if events > est || est-est0 < events-events0 {
		t.Errorf("an autoscaler every 1ms: estimate %d (without it: %d), processed %d (%d); the estimate must grow by at least the %d events its samples add",
			est, est0, events, events0, events-events0)
	}
}

// TestMergeRefusesScalingOutOfRange: a part's scaling events and worker
// changes name an autoscaled dependency of the run and worker counts in
// 0..MaxWorkers (a phase flag 0 or 1); Merge refuses any other, and takes
// the ranges' edges.
func TestMergeRefusesScalingOutOfRange(t *testing.T) {
	sc := autoscalePartScenario(t)
	parts := onePerSimulation(t, sc, Options{})
	for _, c := range []struct {
		desc    string
		scaling [][5]int64
		workers [][3]int64
		want    string
	}{
		{"the edges (the control)", [][5]int64{{1, 0, 0, MaxWorkers, 1}, {2, 0, MaxWorkers, 0, 0}}, [][3]int64{{1, 0, 0}, {2, 0, MaxWorkers}}, ""},
		{"scaling: no such dependency", [][5]int64{{1, 1, 2, 3, 0}}, nil, "a scaling event [1 1 2 3 0] out of range"},
		{"scaling: a negative dependency", [][5]int64{{1, -1, 2, 3, 0}}, nil, "a scaling event"},
		{"scaling: from below 0", [][5]int64{{1, 0, -1, 3, 0}}, nil, "a scaling event"},
		{"scaling: to below 0", [][5]int64{{1, 0, 2, -1, 0}}, nil, "a scaling event"},
		{"scaling: from past the most", [][5]int64{{1, 0, MaxWorkers + 1, 3, 0}}, nil, "a scaling event"},
		{"scaling: to past the most", [][5]int64{{1, 0, 2, MaxWorkers + 1, 0}}, nil, "a scaling event"},
		{"scaling: a phase flag of 2", [][5]int64{{1, 0, 2, 3, 2}}, nil, "a scaling event"},
		{"scaling: a phase flag of -1", [][5]int64{{1, 0, 2, 3, -1}}, nil, "a scaling event"},
		{"workers: no such dependency", nil, [][3]int64{{1, 1, 2}}, "a change of workers [1 1 2] out of range"},
		{"workers: a negative dependency", nil, [][3]int64{{1, -1, 2}}, "a change of workers"},
		{"workers: below 0", nil, [][3]int64{{1, 0, -1}}, "a change of workers"},
		{"workers: past the most", nil, [][3]int64{{1, 0, MaxWorkers + 1}}, "a change of workers"},
	} {
		t.Run(c.desc, func(t *testing.T) {
			ps := append([]*Part(nil), parts...)
			ps[0] = roundTrip(t, ps[0]) // a copy
			o := &ps[0].Simulations[0]
			o.Scaling, o.Workers = c.scaling, c.workers
			res, err := Merge(sc, ps...)
			if c.want == "" {
				if err != nil {
					t.Fatalf("the control fails: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, %v; want an error saying %q", res != nil, err, c.want)
			}
		})
	}
}

// TestAutoscalePartlyCancelledWarmUpAddsTheRest: a scale-down that
// cancels some of the workers warming up leaves the others to join when
// the warm-up ends. 2 workers of 300 ms under 4 operations a second,
// the service 600 ms until 10 s: busy at every sample, the autoscaler
// goes from 2 to 4 at 10 s, the 2 new ones warming up until 25 s. At 20 s
// it wants 3 (the backlog gone, a sample sees 1 or 2 busy): 1 warming
// worker is cancelled, the 2 serving stay, and at 25 s the other warming
// one joins them: 3 serving until the evaluation at 30 s takes 1 away.
func TestAutoscalePartlyCancelledWarmUpAddsTheRest(t *testing.T) {
	js := autoscaleScenario(4, 160, 2, "300ms", `{"metric": "utilization", "target": 0.5, "period": "10s",
		"warm_up": "15s", "min": 2, "max": 4, "scale_down_stabilization": "0s"},
		"phases": [{"kind": "latency", "factor": 2, "from": "0s", "to": "10s"}]`)
	sr := &mustRun(t, js).Strategies[0]
	want := []ScalingEvent{{AtS: 10, From: 2, To: 4}, {AtS: 20, From: 4, To: 3}, {AtS: 30, From: 3, To: 2}}
	if fmt.Sprint(sr.Scaling) != fmt.Sprint(want) {
		t.Fatalf("scaling %+v, want %+v", sr.Scaling, want)
	}
	ws := sr.Series.Workers[0]
	if len(ws.Serving) < 38 {
		t.Fatalf("%d buckets of workers, want the run's 40 s", len(ws.Serving))
	}
	for b := range ws.Serving {
		serving, target := int32(2), int32(2)
		switch {
		case b >= 30:
		case b >= 25:
			serving, target = 3, 3
		case b >= 20:
			target = 3
		case b >= 10:
			target = 4
		}
		if ws.Serving[b] != serving || ws.Target[b] != target {
			t.Errorf("in [%d s, %d s): %d serving, %d in all; want %d, %d", b, b+1, ws.Serving[b], ws.Target[b], serving, target)
		}
	}
	// One dependency: its series names none.
	if ws.Dependency != "" {
		t.Errorf("worker series of the only dependency named %q, want none", ws.Dependency)
	}
}

// TestAutoscaleBoundsOfWorkers: a dependency whose autoscaler scales its
// workers may have from the lower to the higher of min and its workers
// and up to the higher of max and its workers; one that scales backends
// keeps its workers per backend.
func TestAutoscaleBoundsOfWorkers(t *testing.T) {
	for _, c := range []struct {
		name        string
		d           Dependency
		least, most int
	}{
		{"no autoscaler", Dependency{Workers: 4}, 4, 4},
		{"workers inside", Dependency{Workers: 4, Autoscale: &Autoscale{Min: 2, Max: 10}}, 2, 10},
		{"over backends", Dependency{Workers: 4, Backends: &Backends{Count: 2}, Autoscale: &Autoscale{Min: 2, Max: 10}}, 4, 4},
	} {
		if least, most := autoscaleBounds(&c.d); least != c.least || most != c.most {
			t.Errorf("%s: %d to %d workers, want %d to %d", c.name, least, most, c.least, c.most)
		}
	}
}

// TestStabilizeHoldsOnlyRecommendationsThatMayLead: the window's
// recommendations are kept only while they may still be its highest, so
// a steady recommendation holds one, however long the window: an
// autoscaler evaluating every millisecond over a window of hours keeps
// its memory flat. A later one as high replaces an earlier one (it
// outlives it), and the highest is still the answer.
func TestStabilizeHoldsOnlyRecommendationsThatMayLead(t *testing.T) {
	sc := &scaleState{recs: []recommendation{{at: 0, workers: 10}}}
	const w = 1000
	for at := 1; at <= 100; at++ {
		if got := sc.stabilize(int64(at), w, 10, 7); got != 10 {
			t.Fatalf("at %d, 10 workers, 7 recommended: %d, want 10 (the start's, in the window)", at, got)
		}
	}
	if want := []recommendation{{0, 10}, {100, 7}}; fmt.Sprint(sc.recs) != fmt.Sprint(want) {
		t.Errorf("after 100 recommendations of 7 the window holds %d (from %v), want %v", len(sc.recs), sc.recs[:min(len(sc.recs), 3)], want)
	}
	if got := sc.stabilize(101, w, 10, 10); got != 10 || len(sc.recs) != 1 {
		t.Errorf("a recommendation of 10 as high as the start's: %d, holding %d; want 10, holding it alone", got, len(sc.recs))
	}
}
