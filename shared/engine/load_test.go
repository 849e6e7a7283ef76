package engine

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// arrivalTimes returns the arrival times, in seconds, of w's workload
// over seeds.
func arrivalTimes(t *testing.T, w Workload, seeds int) [][]float64 {
	t.Helper()
	sc := &Scenario{Version: 1, Name: "load", Workload: w,
		Dependency: Dependency{Workers: 1, ServiceTime: Distribution{Kind: ServiceConstant, Mean: Duration(time.Millisecond)}},
		Strategies: []Strategy{{Name: "a", Policy: Policy{MaxAttempts: 1}}}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	m := compile(sc)
	var out [][]float64
	for s := range seeds {
		a := newArrivals(&m.work, uint64(s+1))
		var ts []float64
		for x, ok := a.next(); ok; x, ok = a.next() {
			ts = append(ts, float64(x.at)/1e9)
		}
		out = append(out, ts)
	}
	return out
}

// countIn counts the arrivals in [from, to) seconds over every seed.
func countIn(runs [][]float64, from, to float64) float64 {
	n := 0
	for _, ts := range runs {
		for _, t := range ts {
			if t >= from && t < to {
				n++
			}
		}
	}
	return float64(n)
}

// near fails unless got is within 4 standard deviations of a Poisson
// count with mean want.
func nearCount(t *testing.T, what string, got, want float64) {
	t.Helper()
	if d := math.Abs(got - want); d > 4*math.Sqrt(want)+1 {
		t.Errorf("%s: %g arrivals, want %g ± %.0f", what, got, want, 4*math.Sqrt(want))
	}
}

func TestLoadPhasesShapeTheArrivals(t *testing.T) {
	const seeds = 20
	base := Workload{Clients: 100, Rate: 100, Duration: Duration(40 * time.Second)}
	phase := func(lp LoadPhase) Workload {
		w := base
		w.Load = []LoadPhase{lp}
		return w
	}
	s := func(x float64) Duration { return Duration(x * float64(time.Second)) }

	t.Run("step", func(t *testing.T) {
		runs := arrivalTimes(t, phase(LoadPhase{Kind: LoadStep, From: s(10), To: s(20), Factor: 3}), seeds)
		nearCount(t, "before", countIn(runs, 0, 10), seeds*100*10)
		nearCount(t, "during", countIn(runs, 10, 20), seeds*300*10)
		nearCount(t, "after", countIn(runs, 20, 40), seeds*100*20)
	})
	t.Run("shed", func(t *testing.T) {
		runs := arrivalTimes(t, phase(LoadPhase{Kind: LoadStep, From: s(10), To: s(40), Factor: 0.2}), seeds)
		nearCount(t, "shed", countIn(runs, 10, 40), seeds*20*30)
	})
	t.Run("ramp", func(t *testing.T) {
		// From ×1 to ×5 over 10 s: the first half averages ×2, the second ×4.
		runs := arrivalTimes(t, phase(LoadPhase{Kind: LoadRamp, From: s(10), To: s(20), Factor: 5}), seeds)
		nearCount(t, "first half", countIn(runs, 10, 15), seeds*100*5*2)
		nearCount(t, "second half", countIn(runs, 15, 20), seeds*100*5*4)
		nearCount(t, "after", countIn(runs, 20, 40), seeds*100*20)
	})
	t.Run("daily", func(t *testing.T) {
		// Over the first half period the sine averages 2/π, over the second −2/π.
		runs := arrivalTimes(t, phase(LoadPhase{Kind: LoadDaily, From: 0, To: s(40), Amplitude: 0.5, Period: s(20)}), seeds)
		nearCount(t, "rising half", countIn(runs, 0, 10)+countIn(runs, 20, 30), seeds*100*20*(1+0.5*2/math.Pi))
		nearCount(t, "falling half", countIn(runs, 10, 20)+countIn(runs, 30, 40), seeds*100*20*(1-0.5*2/math.Pi))
	})
	t.Run("spike", func(t *testing.T) {
		runs := arrivalTimes(t, phase(LoadPhase{Kind: LoadSpike, From: s(10), To: s(12), Rate: 900}), seeds)
		nearCount(t, "during", countIn(runs, 10, 12), seeds*1000*2)
		nearCount(t, "around", countIn(runs, 0, 10)+countIn(runs, 12, 40), seeds*100*38)
	})
	t.Run("flash", func(t *testing.T) {
		// 4,000 more operations over 10 s, linearly falling: three quarters
		// of them in the first half.
		runs := arrivalTimes(t, phase(LoadPhase{Kind: LoadFlash, From: s(10), To: s(20), Operations: 4000}), seeds)
		nearCount(t, "first half", countIn(runs, 10, 15), seeds*(100*5+3000))
		nearCount(t, "second half", countIn(runs, 15, 20), seeds*(100*5+1000))
	})
	t.Run("overlap", func(t *testing.T) {
		// Multipliers multiply, extra rates add: (100·2·3) + 50.
		w := base
		w.Load = []LoadPhase{{Kind: LoadStep, From: s(10), To: s(20), Factor: 2}, {Kind: LoadStep, From: s(15), To: s(20), Factor: 3},
			{Kind: LoadSpike, From: s(15), To: s(20), Rate: 50}}
		runs := arrivalTimes(t, w, seeds)
		nearCount(t, "one step", countIn(runs, 10, 15), seeds*200*5)
		nearCount(t, "both and the spike", countIn(runs, 15, 20), seeds*650*5)
	})
	t.Run("operations limit", func(t *testing.T) {
		w := phase(LoadPhase{Kind: LoadStep, From: s(10), To: s(20), Factor: 3})
		w.Operations = 1500
		for _, ts := range arrivalTimes(t, w, 3) {
			if len(ts) != 1500 {
				t.Errorf("%d arrivals, want the workload's 1500", len(ts))
			}
		}
	})
}

func TestLoadPhasesAreDeterministicAndInOrder(t *testing.T) {
	w := Workload{Clients: 10, Rate: 50, Duration: Duration(20 * time.Second),
		Load: []LoadPhase{{Kind: LoadSpike, From: Duration(5 * time.Second), To: Duration(6 * time.Second), Rate: 500},
			{Kind: LoadDaily, From: 0, To: Duration(20 * time.Second), Amplitude: 0.3, Period: Duration(7 * time.Second)}}}
	a, b := arrivalTimes(t, w, 2), arrivalTimes(t, w, 2)
	for i := range a {
		if len(a[i]) != len(b[i]) {
			t.Fatalf("seed %d: %d and %d arrivals", i, len(a[i]), len(b[i]))
		}
		for k := range a[i] {
			if a[i][k] != b[i][k] {
				t.Fatalf("seed %d arrival %d: %g and %g", i, k, a[i][k], b[i][k])
			}
			if k > 0 && a[i][k] < a[i][k-1] {
				t.Fatalf("seed %d: arrival %d at %g before %g", i, k, a[i][k], a[i][k-1])
			}
		}
		if last := a[i][len(a[i])-1]; last >= 20 {
			t.Errorf("an arrival at %gs, after the workload's end", last)
		}
	}
}

// TestProbeCutWithLoadPhases: a probe's load reduction scales every
// arrival from its time on, the spike's too.
func TestProbeCutWithLoadPhases(t *testing.T) {
	sc := &Scenario{Version: 1, Name: "cut",
		Workload:   Workload{Clients: 10, Rate: 100, Duration: Duration(30 * time.Second), Load: []LoadPhase{{Kind: LoadSpike, From: Duration(20 * time.Second), To: Duration(30 * time.Second), Rate: 300}}},
		Dependency: Dependency{Workers: 1, ServiceTime: Distribution{Kind: ServiceConstant, Mean: Duration(time.Millisecond)}},
		Strategies: []Strategy{{Name: "a", Policy: Policy{MaxAttempts: 1}}}}
	m := compile(sc)
	m.work.cut, m.work.cutAt, m.work.cutRate = true, int64(10*time.Second), 25 // a quarter of 100
	var runs [][]float64
	for s := range 20 {
		a := newArrivals(&m.work, uint64(s+1))
		var ts []float64
		for x, ok := a.next(); ok; x, ok = a.next() {
			ts = append(ts, float64(x.at)/1e9)
		}
		runs = append(runs, ts)
	}
	nearCount(t, "before the cut", countIn(runs, 0, 10), 20*100*10)
	nearCount(t, "cut", countIn(runs, 10, 20), 20*25*10)
	nearCount(t, "cut spike", countIn(runs, 20, 30), 20*100*10)
}

func TestLoadLatencyLaws(t *testing.T) {
	for _, tc := range []struct {
		l          LoadLatency
		n, workers int
		want       float64
	}{
		{LoadLatency{Law: LawLinear, Slope: 2}, 5, 10, 2},                         // 1 + 2·0.5
		{LoadLatency{Law: LawLinear, Slope: 2, Knee: 0.8}, 5, 10, 1},              // below the knee
		{LoadLatency{Law: LawLinear, Slope: 2, Knee: 0.5}, 20, 10, 4},             // 1 + 2·1.5
		{LoadLatency{Law: LawPolynomial, Slope: 1, Power: 2}, 30, 10, 10},         // 1 + 3²
		{LoadLatency{Law: LawExponential, Slope: 1}, 20, 10, math.Exp(2)},         // e²
		{LoadLatency{Law: LawUSL, Sigma: 0.05, Kappa: 0.001}, 1, 10, 1},           // one request: no contention
		{LoadLatency{Law: LawUSL, Sigma: 0.05, Kappa: 0.001}, 11, 10, 1.61},       // 1 + 0.5 + 0.11
		{LoadLatency{Law: LawLinear, Slope: 1000}, 100, 1, DefaultLoadLatencyMax}, // capped
		{LoadLatency{Law: LawLinear, Slope: 1000, MaxFactor: 7}, 100, 1, 7},
	} {
		got := compileLoadLatency(&tc.l).factor(tc.n, tc.workers)
		if math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("%+v at %d requests of %d workers: factor %g, want %g", tc.l, tc.n, tc.workers, got, tc.want)
		}
	}
}

// TestUSLThroughputPeaks: under the Universal Scalability Law the
// dependency's throughput at full concurrency N is N/(1+σ(N−1)+κN(N−1))
// service times: past √((1−σ)/κ) more workers serve less.
func TestUSLThroughputPeaks(t *testing.T) {
	served := func(workers int) float64 {
		sc := &Scenario{Version: 1, Name: "usl",
			// Three clients per worker, closed loop: every worker always busy.
			Workload: Workload{Clients: 3 * workers, Arrival: ArrivalClosed, ThinkTime: Duration(time.Millisecond), Duration: Duration(20 * time.Second)},
			Dependency: Dependency{Workers: workers, QueueCapacity: 10 * workers, ServiceTime: Distribution{Kind: ServiceConstant, Mean: Duration(10 * time.Millisecond)},
				LoadLatency: &LoadLatency{Law: LawUSL, Sigma: 0.02, Kappa: 0.002}},
			Strategies: []Strategy{{Name: "a", Policy: Policy{MaxAttempts: 1}}},
		}
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Strategies[0].Metrics.Succeeded / 20
	}
	// Peak at √(0.98/0.002) ≈ 22: 22 workers serve more than 10 or 60.
	for _, w := range []int{10, 22, 60} {
		n := float64(w)
		want := n / (1 + 0.02*(n-1) + 0.002*n*(n-1)) / 0.010
		if got := served(w); math.Abs(got-want) > 0.05*want {
			t.Errorf("%d workers, always busy: %.0f served per second, want the law's %.0f", w, got, want)
		}
	}
}

func TestLoadLatencyGrowsWithTheQueue(t *testing.T) {
	run := func(l *LoadLatency) float64 {
		sc := &Scenario{Version: 1, Name: "grow",
			Workload: Workload{Clients: 10, Arrival: ArrivalBurst, BurstAt: 0},
			Dependency: Dependency{Workers: 1, QueueCapacity: 100, ServiceTime: Distribution{Kind: ServiceConstant, Mean: Duration(10 * time.Millisecond)},
				LoadLatency: l},
			Strategies: []Strategy{{Name: "a", Policy: Policy{MaxAttempts: 1}}}}
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Strategies[0].Metrics.LatencyMaxms
	}
	// Ten requests at once on one worker: the first starts alone, before
	// the others arrive (1 in the system); the k-th after it (k = 1..9)
	// starts when the one before ends and finds 10−k in the system, so it
	// takes 10 ms·(1 + 0.1·(10−k)) with in_system; each takes 10 ms·1.1
	// with in_service.
	wantSystem := 11.0
	for k := 1; k < 10; k++ {
		wantSystem += 10 * (1 + 0.1*float64(10-k))
	}
	if got := run(&LoadLatency{Law: LawLinear, Slope: 0.1, Of: MeasureInSystem}); math.Abs(got-wantSystem) > 0.01 {
		t.Errorf("in_system: the last answer after %g ms, want %g", got, wantSystem)
	}
	if got := run(&LoadLatency{Law: LawLinear, Slope: 0.1}); math.Abs(got-110) > 0.01 {
		t.Errorf("in_service: the last answer after %g ms, want 110", got)
	}
	if got := run(nil); math.Abs(got-100) > 0.01 {
		t.Errorf("without: the last answer after %g ms, want 100", got)
	}
}

func TestLoadValidation(t *testing.T) {
	const base = `{"version": 1, "name": "v",
	"workload": {"clients": 10, "rate": 10, "duration": "10s", "load": [LOAD]},
	"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 5LAT},
	"strategies": [{"name": "a", "max_attempts": 3}]}`
	for _, tc := range []struct{ load, lat, path, want string }{
		{`{"kind": "surge", "from": "1s", "to": "2s"}`, "", "workload.load[0].kind", `"surge" is not one of "step", "ramp", "daily", "spike", "flash"`},
		{`{"kind": "step", "from": "1s", "to": "2s", "factor": 1}`, "", "workload.load[0].factor", "other than 1"},
		{`{"kind": "step", "from": "1s", "to": "2s", "factor": 200}`, "", "workload.load[0].factor", "in 0..100"},
		{`{"kind": "step", "from": "3s", "to": "2s", "factor": 2}`, "", "workload.load[0].to", "is not after from 3s"},
		{`{"kind": "step", "from": "12s", "to": "20s", "factor": 2}`, "", "workload.load[0].from", "is not before the workload's end at 10s"},
		{`{"kind": "spike", "from": "1s", "to": "2s", "factor": 2}`, "", "workload.load[0].factor", `it is for "step", "ramp"`},
		{`{"kind": "spike", "from": "1s", "to": "2s"}`, "", "workload.load[0].rate", "out of range"},
		{`{"kind": "flash", "from": "1s", "to": "2s"}`, "", "workload.load[0].operations", "out of range"},
		{`{"kind": "daily", "from": "0s", "to": "10s", "amplitude": 2, "period": "5s"}`, "", "workload.load[0].amplitude", "in (0, 1]"},
		{`{"kind": "daily", "from": "0s", "to": "10s", "amplitude": 0.5}`, "", "workload.load[0].period", "24h for a day"},
		{`{"kind": "step", "from": "1s", "to": "2s", "factor": 2}`, `, "load_latency": {"law": "cubic"}`, "dependency.load_latency.law", `is not one of "linear", "polynomial", "exponential", "usl"`},
		{`{"kind": "step", "from": "1s", "to": "2s", "factor": 2}`, `, "load_latency": {"law": "linear"}`, "dependency.load_latency.slope", "needs a slope"},
		{`{"kind": "step", "from": "1s", "to": "2s", "factor": 2}`, `, "load_latency": {"law": "linear", "slope": 1, "sigma": 0.1}`, "dependency.load_latency.sigma", `it is for "usl"`},
		{`{"kind": "step", "from": "1s", "to": "2s", "factor": 2}`, `, "load_latency": {"law": "usl"}`, "dependency.load_latency.sigma", "needs sigma"},
		{`{"kind": "step", "from": "1s", "to": "2s", "factor": 2}`, `, "load_latency": {"law": "usl", "kappa": 0.01, "of": "heap"}`, "dependency.load_latency.of", `"in_service", "in_system"`},
		{`{"kind": "step", "from": "1s", "to": "2s", "factor": 2}`, `, "load_latency": {"law": "polynomial", "slope": 1}`, "dependency.load_latency.power", "needs a power"},
	} {
		doc := strings.Replace(strings.Replace(base, "LOAD", tc.load, 1), "LAT", tc.lat, 1)
		_, err := Parse([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("load %s%s: error %v, want one at %s containing %q", tc.load, tc.lat, err, tc.path, tc.want)
		}
	}
	// Load phases need Poisson arrivals.
	doc := strings.Replace(strings.Replace(base, "LOAD", `{"kind": "step", "from": "1s", "to": "2s", "factor": 2}`, 1), "LAT", "", 1)
	doc = strings.Replace(doc, `"rate": 10,`, `"rate": 10, "arrival": "uniform",`, 1)
	if _, err := Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), `workload.load`) || !strings.Contains(err.Error(), `"poisson"`) {
		t.Errorf("uniform arrivals with load phases: %v", err)
	}
	// Without a duration, the one error is the duration's: no phase is
	// blamed for starting after an end that is not there.
	doc = strings.Replace(strings.Replace(base, "LOAD", `{"kind": "step", "from": "1s", "to": "2s", "factor": 2}`, 1), "LAT", "", 1)
	doc = strings.Replace(doc, `"duration": "10s"`, `"operations": 100`, 1)
	_, err := Parse([]byte(doc))
	if es := AsErrors(err); len(es) != 1 || es[0].Error() != `workload.duration: "0s" must be more than 0s for a workload with load phases: they are placed in its duration` {
		t.Errorf("load phases without a duration: %v", err)
	}
}

// TestLoadPhasesTrigger: a phase that raises the load is the trigger
// that the affected window and recovery follow (and the probe's
// counterfactual: probe.TestCounterfactualLoadPhases); a daily curve and
// a shed are not.
func TestLoadPhasesTrigger(t *testing.T) {
	s := func(x float64) Duration { return Duration(x * float64(time.Second)) }
	sc := &Scenario{Workload: Workload{Load: []LoadPhase{{Kind: LoadDaily, From: 0, To: s(60), Amplitude: 0.2, Period: s(60)},
		{Kind: LoadStep, From: s(5), To: s(60), Factor: 0.5}, {Kind: LoadSpike, From: s(20), To: s(25), Rate: 10}}}}
	w := sc.AffectedWindow()
	if w.Phases == nil || w.Phases.From != s(20) || w.Phases.To != s(25) {
		t.Errorf("affected window %+v, want the spike's 20s to 25s", w)
	}
}

func TestEstimateBoundsLoadPhases(t *testing.T) {
	sc := &Scenario{Version: 1, Name: "est",
		Workload: Workload{Clients: 10, Rate: 100, Duration: Duration(20 * time.Second),
			Load: []LoadPhase{{Kind: LoadSpike, From: Duration(5 * time.Second), To: Duration(10 * time.Second), Rate: 2000},
				{Kind: LoadFlash, From: Duration(12 * time.Second), To: Duration(14 * time.Second), Operations: 3000}}},
		Dependency: Dependency{Workers: 4, QueueCapacity: 50, ServiceTime: Distribution{Kind: ServiceExponential, Mean: Duration(5 * time.Millisecond)},
			LoadLatency: &LoadLatency{Law: LawExponential, Slope: 2, Of: MeasureInSystem}},
		Strategies: []Strategy{{Name: "a", Policy: Policy{MaxAttempts: 4, Backoff: Backoff{Kind: BackoffNone}}}}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	if ops := estimateOps(sc); ops < 100*20+2000*5+3000 {
		t.Errorf("estimated %g operations, below the %d the phases bring", ops, 100*20+2000*5+3000)
	}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if est := Estimate(sc); res.Events > est {
		t.Errorf("%d events, over the estimate of %d", res.Events, est)
	}
}

// TestFlashPeakIsTakenAtEachSegmentsStart: a flash crowd's extra rate
// falls linearly from its peak to 0 over the phase, so a segment that
// starts inside it (here at 12 s, where a step begins) is bounded by the
// flash's rate at that start, the highest in the segment: a looser bound
// would draw candidate arrivals in vain and inflate the estimate of
// operations, which adds up these bounds:
// 1,500/s at the flash's start (3,000 operations over 4 s), 750/s more
// from 12 s, the base 100/s doubled there:
// 100×10 + 1,600×2 + (200+750)×2 + 100×6 = 6,700.
func TestFlashPeakIsTakenAtEachSegmentsStart(t *testing.T) {
	s := func(x float64) Duration { return Duration(x * float64(time.Second)) }
	w := Workload{Clients: 10, Arrival: ArrivalPoisson, Rate: 100, Duration: s(20),
		Load: []LoadPhase{{Kind: LoadFlash, From: s(10), To: s(14), Operations: 3000},
			{Kind: LoadStep, From: s(12), To: s(14), Factor: 2}}}
	m := workModel{rate: w.Rate, load: compileLoad(w.Load)}
	want := []loadSeg{{0, 10e9, 100}, {10e9, 12e9, 1600}, {12e9, 14e9, 950}, {14e9, 20e9, 100}}
	got := m.loadSegs(float64(w.Duration))
	if len(got) != len(want) {
		t.Fatalf("segments %v, want %v", got, want)
	}
	for i, g := range got {
		if g.from != want[i].from || g.to != want[i].to || math.Abs(g.max/want[i].max-1) > 1e-8 {
			t.Errorf("segment %d: %+v, want %+v (times in ns, rates per second)", i, g, want[i])
		}
	}
	if ops := loadOperations(&w, w.Rate); math.Abs(ops/6700-1) > 1e-8 {
		t.Errorf("estimated %g operations, want 6700", ops)
	}
}

// TestProbeCutScalesARampingRate: a probe's cut multiplies the rate at
// each instant by cutRate/rate, under a ramp too, where the arrivals are
// thinned below the segment's peak. 100 a second ramping to 3 times that
// over [10 s, 20 s), cut to a quarter from 10 s: at 15 s the rate is
// 100 × 2 × 0.25 = 50, and [10 s, 20 s) holds 100 × 2 × 0.25 × 10 = 500
// arrivals a run on average.
func TestProbeCutScalesARampingRate(t *testing.T) {
	sc := &Scenario{Version: 1, Name: "cut",
		Workload:   Workload{Clients: 10, Rate: 100, Duration: Duration(20 * time.Second), Load: []LoadPhase{{Kind: LoadRamp, From: Duration(10 * time.Second), To: Duration(20 * time.Second), Factor: 3}}},
		Dependency: Dependency{Workers: 1, ServiceTime: Distribution{Kind: ServiceConstant, Mean: Duration(time.Millisecond)}},
		Strategies: []Strategy{{Name: "a", Policy: Policy{MaxAttempts: 1}}}}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	m := compile(sc)
	m.work.cut, m.work.cutAt, m.work.cutRate = true, int64(10*time.Second), 25
	if r := m.work.rateAt(15e9); math.Abs(r-50) > 1e-9 {
		t.Errorf("rate at 15 s %v, want 50", r)
	}
	var runs [][]float64
	for s := range 20 {
		a := newArrivals(&m.work, uint64(s+1))
		var ts []float64
		for x, ok := a.next(); ok; x, ok = a.next() {
			ts = append(ts, float64(x.at)/1e9)
		}
		runs = append(runs, ts)
	}
	nearCount(t, "before the cut", countIn(runs, 0, 10), 20*100*10)
	nearCount(t, "cut ramp", countIn(runs, 10, 20), 20*500)
}
