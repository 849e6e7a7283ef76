package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestArrivalsCut checks a load reduction's arrivals: the same as without
// it before the cut, and at the reduced rate after it.
func TestArrivalsCut(t *testing.T) {
	for _, kind := range []ArrivalKind{ArrivalPoisson, ArrivalUniform} {
		w := workModel{arrival: kind, clients: 10, rate: 1000, duration: 20e9}
		cut := w
		cut.cut, cut.cutAt, cut.cutRate = true, 10e9, 250
		a, b := newArrivals(&w, 7), newArrivals(&cut, 7)
		var before, after int
		for {
			y, ok := b.next()
			if !ok {
				break
			}
			if y.at < 10e9 {
				x, _ := a.next()
				if x != y {
					t.Fatalf("%s: arrival %d is %+v with the cut, %+v without", kind, before, y, x)
				}
				before++
			} else {
				after++
			}
		}
		if before < 9800 || before > 10200 || after < 2350 || after > 2650 {
			t.Errorf("%s: %d arrivals before the cut (want about 10,000), %d after (about 2,500)", kind, before, after)
		}
	}
}

// TestArrivalsCutGapFromTheCut: a Poisson gap that would cross the cut is
// drawn again from the cut at the new rate (the process is memoryless),
// so the first arrival after it comes a mean 1/cutRate later: 2 s at half
// an operation a second, however busy the workload was before.
func TestArrivalsCutGapFromTheCut(t *testing.T) {
	const seeds = 400
	w := workModel{arrival: ArrivalPoisson, clients: 1, rate: 100, duration: 100e9,
		cut: true, cutAt: 10e9, cutRate: 0.5}
	sum := 0.0
	for seed := range uint64(seeds) {
		a := newArrivals(&w, seed+1)
		for {
			x, ok := a.next()
			if !ok {
				t.Fatalf("seed %d: no arrival after the cut", seed+1)
			}
			if x.at >= w.cutAt {
				sum += float64(x.at-w.cutAt) / 1e9
				break
			}
		}
	}
	// An exponential's mean over 400 draws: 2 s, standard deviation 0.1 s.
	if mean := sum / seeds; mean < 1.6 || mean > 2.4 {
		t.Errorf("the first arrival after the cut comes a mean %.3fs after it, want 2s ± 0.4s", mean)
	}
}

// TestSegmentsCountFastFailures: a tuned run's segments count, of the
// operations started in each, those a breaker failed fast, not those
// that failed at the dependency. One operation a second meets a script
// of 503s, with one attempt each and a breaker opening on 2 failures in
// a row for a minute: operations 0 and 1 fail at the dependency, 2 to 4
// fail fast and send nothing.
func TestSegmentsCountFastFailures(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "segments",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 5},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}, "queue_capacity": 0,
			"script": {"then": "last", "answers": [{"status": 503}]}},
		"strategies": [{"name": "s", "max_attempts": 1, "breaker": {"kind": "consecutive", "failures": 2, "break": "1m"}}],
		"report": {"affected_from": "0s", "affected_to": "5s"}}`))
	if err != nil {
		t.Fatal(err)
	}
	part, err := RunTuned(context.Background(), sc, &Tuning{Segment: Duration(time.Second)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][4]int64{{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 1, 0}, {1, 0, 1, 0}, {1, 0, 1, 0}} // ops, ok, fast, calls
	if got := part.Simulations[0].Segments; !slices.Equal(got, want) {
		t.Errorf("segments %v; want %v", got, want)
	}
}

// TestTuningCutsUpTo99Percent: a tuning's cut_percent is 0..99. A cut of
// 99% leaves 1% of the arrival rate (100 operations a second for 1 s,
// then 1 a second for 1 s: 101), and 100% (no arrivals at all) or a
// negative cut is refused with the value named.
func TestTuningCutsUpTo99Percent(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "cut",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 100, "duration": "2s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0},
		"strategies": [{"name": "s", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	part, err := RunTuned(context.Background(), sc, &Tuning{CutPercent: 99, CutAt: Duration(time.Second)}, Options{})
	if err != nil {
		t.Fatalf("a cut of 99%%: %v", err)
	}
	if ops := part.Simulations[0].Metrics.Operations; ops < 100 || ops > 102 {
		t.Errorf("a cut of 99%% after 1s of 100 a second: %v operations; want about 101", ops)
	}
	for _, cut := range []int{100, -1} {
		_, err := RunTuned(context.Background(), sc, &Tuning{CutPercent: cut, CutAt: Duration(time.Second)}, Options{})
		if want := fmt.Sprintf("engine: a tuning's cut_percent %d is not in 0..99", cut); err == nil || err.Error() != want {
			t.Errorf("a cut of %d%%: error %v; want %q", cut, err, want)
		}
	}
}
