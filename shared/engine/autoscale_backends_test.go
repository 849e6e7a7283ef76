package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// backendsScenario is autoscaleScenario with backends: count backends of
// workers each behind a round-robin balancer, the autoscaler adding and
// removing backends.
func backendsScenario(rate float64, ops, workers, count int, service, autoscale string) string {
	return strings.Replace(autoscaleScenario(rate, ops, workers, service, autoscale), `"autoscale":`,
		fmt.Sprintf(`"backends": {"count": %d}, "autoscale":`, count), 1)
}

// backendRequests returns how many requests the balancer routed to each
// backend in strategy 0 of res.
func backendRequests(res *Result) []float64 {
	var out []float64
	for _, b := range res.Strategies[0].Backends {
		out = append(out, b.Metrics.Requests)
	}
	return out
}

// TestAutoscaleBackendsUpJoinAfterWarmUp: 2 backends of 1 worker of 1 s
// each under 4 operations a second are always busy. The evaluation at
// 10 s sees 2 busy workers of 2 ready backends, 2 backends' worth, ratio
// 2 at a target of 0.5: ceil(2 × 2) = 4, capped at max 3. Backend 2 joins
// the rotation at 15 s (a warm-up of 5 s); at 20 s the mean is
// (4 × 2 + 6 × 3)/10 = 2.6 of 3, which recommends 6, capped: no change.
// Round robin takes operations 0..59 (0..14.75 s) to backends 0 and 1 in
// turn, 30 each; from 15 s (the warm-up's end comes before the arrival at
// that instant) its counter, 60, goes on over 3: operations 60..79 go to
// backends 0, 1, 2, 0, … (7, 7 and 6).
func TestAutoscaleBackendsUpJoinAfterWarmUp(t *testing.T) {
	js := backendsScenario(4, 80, 1, 2, "1s", `{"metric": "utilization", "target": 0.5, "period": "10s",
		"warm_up": "5s", "min": 1, "max": 3, "scale_down_stabilization": "0s"}`)
	res := mustRun(t, js)
	sr := &res.Strategies[0]
	if len(sr.Scaling) != 1 || sr.Scaling[0] != (ScalingEvent{AtS: 10, From: 2, To: 3}) {
		t.Fatalf("scaling %+v, want one event at 10 s, 2 to 3 backends", sr.Scaling)
	}
	if got, want := backendRequests(res), []float64{37, 37, 6}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests per backend %v, want %v", got, want)
	}
	ws := sr.Series.Workers
	if len(ws) != 1 {
		t.Fatalf("%d worker series, want 1", len(ws))
	}
	for _, c := range []struct{ bucket, serving, target int32 }{{9, 2, 2}, {10, 2, 3}, {14, 2, 3}, {15, 3, 3}, {25, 3, 3}} {
		if s, g := ws[0].Serving[c.bucket], ws[0].Target[c.bucket]; s != c.serving || g != c.target {
			t.Errorf("in [%d s, %d s): %d backends ready, %d in all; want %d, %d", c.bucket, c.bucket+1, s, g, c.serving, c.target)
		}
	}
}

// TestAutoscaleBackendsDownFinishesWork: 4 backends of 1 worker of 30 s
// take operations 0..3 (at 0..3 s, round robin); 4..9 queue on backends
// 0, 1, 2, 3, 0, 1. The evaluation at 10 s sees a mean of
// (0+0+0+0+1+2+3+4+5+6)/10 = 2.1 queued on the ready backends, far below
// the target of 100 per worker: ceil(4 × 2.1/4/100) = 1. All four were
// there from the start, so the newest-first rule falls to its tie-break
// and removes backends 3, 2 and 1, which finish what they were routed
// (graceful termination): their requests end at 31, 32, 33, 61, 62, 63
// and 91 s. Operations 10..13 (from 10 s, after the evaluation at that
// instant) all go to backend 0, behind 0, 4 and 8: it ends them at 30,
// 60, 90, 120, …, 210 s.
func TestAutoscaleBackendsDownFinishesWork(t *testing.T) {
	js := backendsScenario(1, 14, 1, 4, "30s", `{"metric": "queue_per_worker", "target": 100, "period": "10s",
		"min": 1, "max": 4, "scale_down_stabilization": "0s"}`)
	res := mustRun(t, js)
	sr := &res.Strategies[0]
	if len(sr.Scaling) != 1 || sr.Scaling[0] != (ScalingEvent{AtS: 10, From: 4, To: 1}) {
		t.Fatalf("scaling %+v, want one event at 10 s, 4 to 1 backends", sr.Scaling)
	}
	if m := sr.Metrics; m.Succeeded != 14 {
		t.Errorf("%v succeeded, want all 14", m.Succeeded)
	}
	if got, want := backendRequests(res), []float64{7, 3, 2, 2}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests per backend %v, want %v", got, want)
	}
	_, ends := opEnds(t, js)
	want := []time.Duration{30, 31, 32, 33, 60, 61, 62, 63, 90, 91, 120, 150, 180, 210}
	if len(ends) != len(want) {
		t.Fatalf("%d operations ended, want %d", len(ends), len(want))
	}
	for i, w := range want {
		if ends[i] != w*time.Second {
			t.Errorf("operation %d ended at %v, want %v", i, ends[i], w*time.Second)
		}
	}
}

// TestRemovedBackend: scale-down removes a backend warming up before a
// ready one, the one added last first, and among those added at once the
// highest numbered. Of two warming up, the one added last goes first
// even when it holds the lower slot (a slot freed meanwhile), and when
// it holds the higher one (the lowest free slot when it was added).
func TestRemovedBackend(t *testing.T) {
	for _, c := range []struct {
		ready, pending uint16
		created        map[int]int64
		want           string
	}{
		{0b1011, 0b10100, map[int]int64{3: 20, 2: 30, 4: 25}, "[2 4 3 1 0]"},
		{0b0011, 0b1100, map[int]int64{2: 10, 3: 20}, "[3 2 1 0]"},
		{0b0011, 0b1100, map[int]int64{2: 20, 3: 10}, "[2 3 1 0]"},
	} {
		sc := &scaleState{ready: c.ready, pending: c.pending}
		for k, at := range c.created {
			sc.created[k] = at
		}
		var order []int
		for sc.ready|sc.pending != 0 {
			k := removedBackend(sc, MaxBackends)
			order = append(order, k)
			sc.ready &^= 1 << k
			sc.pending &^= 1 << k
		}
		if fmt.Sprint(order) != c.want {
			t.Errorf("ready %b, warming up %b, added at %v: removed in the order %v, want %s", c.ready, c.pending, c.created, order, c.want)
		}
	}
}

// TestAutoscaleBackendsCancelWarmUp: a backend removed while it warms up
// never joins. 2 backends of 1 worker of 100 ms under 4 operations a
// second (round robin: each gets one every 0.5 s, at its sample times
// exactly, after the sample) while a latency phase makes the service 1 s
// until 10 s: both are busy at every sample, and at 10 s the autoscaler
// goes from 2 to 3 (ratio 2, capped at max 3); backend 2 warms up until
// 30 s. Each backend took 20 operations by 10 s and served 10: the other
// 10, and those of 10 and 10.5 s, take 100 ms each, until 11.2 s. So the
// samples of 11..20 s see 2 busy at 11 s and none after: 0.2 of 3
// backends, ratio 0.13, ceil(0.4) = 1, min 1. Scaling down removes
// backend 2 first (not ready), then backend 1 (ready, the higher
// numbered of those from the start). Backend 2's warm-up end at 30 s
// changes nothing (the run goes on to 40 s); operations 0..79 went to
// backends 0 and 1 in turn, 80..159 (from 20 s) to backend 0.
func TestAutoscaleBackendsCancelWarmUp(t *testing.T) {
	js := backendsScenario(4, 160, 1, 2, "100ms", `{"metric": "utilization", "target": 0.5, "period": "10s",
		"warm_up": "20s", "min": 1, "max": 3, "scale_down_stabilization": "0s"},
		"phases": [{"kind": "latency", "factor": 10, "from": "0s", "to": "10s"}]`)
	res := mustRun(t, js)
	sr := &res.Strategies[0]
	want := []ScalingEvent{{AtS: 10, From: 2, To: 3}, {AtS: 20, From: 3, To: 1}}
	if fmt.Sprint(sr.Scaling) != fmt.Sprint(want) {
		t.Fatalf("scaling %+v, want %+v", sr.Scaling, want)
	}
	if got, want := backendRequests(res), []float64{120, 40, 0}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests per backend %v, want %v", got, want)
	}
	serving := sr.Series.Workers[0].Serving
	if len(serving) < 35 {
		t.Fatalf("%d buckets of workers, want the run's 40 s", len(serving))
	}
	for b, s := range serving {
		if want := int32(2 - min(b/20, 1)); s != want {
			t.Errorf("%d backends ready in [%d s, %d s), want %d", s, b, b+1, want)
		}
	}
}

// TestAutoscaleBackendsValidation: with backends min and max count
// backends (at most MaxBackends), hold backends.count, and phases may aim
// at a backend up to max − 1.
func TestAutoscaleBackendsValidation(t *testing.T) {
	base := backendsScenario(1, 10, 1, 2, "10ms", `{"metric": "utilization", "target": 0.5, "period": "10s",
		"min": 1, "max": 4}, "phases": [{"kind": "outage", "from": "1s", "to": "2s", "backends": [3]}]`)
	if _, err := Parse([]byte(base)); err != nil {
		t.Fatalf("a phase aimed at backend 3 of max 4: %v", err)
	}
	for _, tc := range []struct{ old, new, want string }{
		{`"backends": [3]`, `"backends": [4]`, `dependency.phases[0].backends[0]: 4 is not a backend of the dependency; backends are numbered 0..3 (up to the autoscaler's max)`},
		{`"max": 4`, `"max": 9`, `dependency.autoscale.max: 9 is out of range; with backends the autoscaler adds and removes backends behind the balancer, and max counts backends, 1..8`},
		{`"min": 1`, `"min": 3`, `dependency.autoscale.min: 3 and max 4 do not hold backends.count 2`},
	} {
		_, err := Parse([]byte(strings.Replace(base, tc.old, tc.new, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.new, err, tc.want)
		}
	}
}

// TestEstimateCountsMaxBackends: an autoscaler over backends may set up
// as many backends as its max: the estimate counts them.
func TestEstimateCountsMaxBackends(t *testing.T) {
	est := func(max int) int64 {
		sc, err := Parse([]byte(backendsScenario(1, 10, 1, 2, "10ms", fmt.Sprintf(`{"metric": "utilization", "target": 0.5,
			"period": "10s", "min": 1, "max": %d}`, max))))
		if err != nil {
			t.Fatal(err)
		}
		return Estimate(sc)
	}
	if two, eight := est(2), est(8); eight-two < 6*1000 {
		t.Errorf("estimate %d with max 8 backends, %d with max 2: want at least 6,000 more (1,000 a backend)", eight, two)
	}
}

// TestAutoscaleBackendsMetricIsPerWorker: over backends the metric is
// per worker, the busy workers counted in backends of the dependency's
// Workers. 2 backends of 2 workers of 1 s under 8 operations a second
// keep all 4 workers busy: at the first evaluation, at 10 s, 4 busy
// divided by 2 workers are 2 backends' worth of 2 ready, ratio 2 at a
// target of 0.5, and ceil(2 × 2) = 4 backends. Multiplied instead, they
// would be 8 backends' worth and call for max 8.
func TestAutoscaleBackendsMetricIsPerWorker(t *testing.T) {
	js := backendsScenario(8, 80, 2, 2, "1s", `{"metric": "utilization", "target": 0.5, "period": "10s",
		"min": 1, "max": 8, "scale_down_stabilization": "0s"}`)
	sr := &mustRun(t, js).Strategies[0]
	if len(sr.Scaling) == 0 || sr.Scaling[0] != (ScalingEvent{AtS: 10, From: 2, To: 4}) {
		t.Fatalf("scaling %+v, want first an event at 10 s, 2 to 4 backends", sr.Scaling)
	}
}

// TestAutoscaleBackendsUpTakesADrainedSlotFirst: a backend added takes
// the lowest free slot with nothing left to answer, before a lower one
// still finishing what it was routed. Of max 5, backends 0 and 1 serve;
// going from 2 to 3 backends (3 busy of 2 ready backends of 1 worker at
// a target of 1) takes slot 3 when slot 2 still answers a request and 3
// does not, slot 4 when only 4 is drained, and with every free slot
// drained, or none, the lowest, slot 2.
func TestAutoscaleBackendsUpTakesADrainedSlotFirst(t *testing.T) {
	sc, err := Parse([]byte(backendsScenario(1, 10, 1, 2, "1s", `{"metric": "utilization", "target": 1, "period": "10s",
		"min": 1, "max": 5, "scale_down_stabilization": "0s"}`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		active [3]int // requests left in slots 2, 3 and 4
		want   uint16
	}{
		{[3]int{1, 0, 0}, 0b01011},
		{[3]int{1, 1, 0}, 0b10011},
		{[3]int{0, 0, 0}, 0b00111},
		{[3]int{0, 1, 0}, 0b00111},
		{[3]int{1, 1, 1}, 0b00111}, // none drained: the lowest
	} {
		m := compile(sc)
		s := newSim(context.Background(), m, &m.strategies[0], m.seeds[0], 0)
		b := m.deps[0].bal
		for j, a := range c.active {
			s.deps[int(b.first)+2+j].active = a
		}
		s.now = int64(10 * time.Second)
		s.evaluateBackends(0, 3)
		if got := s.deps[0].scale.ready; got != c.want {
			t.Errorf("requests left in slots 2..4 %v: backends ready %05b after scaling up, want %05b", c.active, got, c.want)
		}
	}
}
