package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestResetMatchesNew runs many scenarios' simulations, every strategy on
// two seeds, in one sim reset from each to the next (big runs and small,
// with and without plans, pools, bulkheads, layers, breakers and scripts,
// and one whose bins coarsen), with and without the time series, and
// checks that each output equals that of a new sim.
func TestResetMatchesNew(t *testing.T) {
	var scs []*Scenario
	files, _ := filepath.Glob("testdata/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	scs = append(scs, decodePlan(t, severalScenario), poolScenario(t, 3, "50ms"), decodePlan(t, `{"version": 1, "name": "days",
		"workload": {"clients": 3, "arrival": "burst"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 0, "error_rate": 1},
		"strategies": [{"name": "daily", "max_attempts": 100, "backoff": {"kind": "constant", "base": "24h"}}]}`))
	r := rand.New(rand.NewPCG(16, 2))
	for range 30 {
		scs = append(scs, randomScenario(r))
	}
	s := new(sim)
	for i, sc := range scs {
		if err := sc.Validate(); err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		m := compile(sc)
		for _, seed := range []uint64{m.seeds[0], m.seeds[0] + 1} {
			for si := range m.strategies {
				st := &m.strategies[si]
				series := (int(seed)+si)%2 == 0
				fresh := newSim(context.Background(), m, st, seed, 0)
				if err := fresh.run(); err != nil {
					t.Fatal(err)
				}
				want := fresh.output(series)
				s.reset(context.Background(), m, st, seed, 0, series)
				if err := s.run(); err != nil {
					t.Fatal(err)
				}
				if got := s.output(series); !sameOutput(got, want) {
					t.Fatalf("scenario %d (%s), strategy %s, seed %d, series %v: the reset sim's output differs from a new one's:\n%+v\n%+v", i, sc.Name, st.name, seed, series, got, want)
				}
			}
		}
	}
}

// sameOutput reports whether a and b are deeply equal, a metric that
// does not apply (NaN, which equals nothing) equal to one that does not
// either.
func sameOutput(a, b runOutput) bool {
	for _, o := range []*runOutput{&a, &b} {
		for _, x := range []*Optional{&o.metrics.RecoveryS, &o.metrics.Recovered} {
			if !x.Applies() {
				*x = -1
			}
		}
	}
	return reflect.DeepEqual(a, b)
}

// TestAllocationsFlatInSeeds checks that a run's allocations hardly grow
// with its seeds: a sim is reset for the next seed, not rebuilt. Each seed
// may allocate what the run's summary keeps of it, a few small slices per
// strategy (16 in all natively as measured, 22 under wasm; 90 if every
// simulation built a new sim), not a sim. Allocation counts do
// not depend on the garbage collector or the machine's speed: the bound,
// 40, is not flaky.
func TestAllocationsFlatInSeeds(t *testing.T) {
	sc := e03b(t)
	allocs := func(runs int) float64 {
		sc.Runs = runs
		return testing.AllocsPerRun(2, func() {
			if _, err := Run(context.Background(), sc, Options{NoSeries: true, Parallelism: 1}); err != nil {
				t.Fatal(err)
			}
		})
	}
	one, ten := allocs(1), allocs(10)
	perSeed := (ten - one) / 9 / float64(len(sc.Strategies))
	t.Logf("allocations: %v with 1 seed, %v with 10 (%.1f per strategy and seed more)", one, ten, perSeed)
	if perSeed > 40 {
		t.Errorf("10 seeds allocate %v times, 1 seed %v: %.1f more per strategy and seed, over 40", ten, one, perSeed)
	}
}

// TestSeriesBinsSizedForTheDuration: a run that counts series gets the
// bins of its workload's duration, and an eighth more, before it starts,
// rather than growing them by doubling as it goes. 10 s at the model's
// bin width, d bins, are d + d/8 + 16 in each series.
func TestSeriesBinsSizedForTheDuration(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "bins",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "10s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1},
		"strategies": [{"name": "s", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compile(sc)
	d := int(m.work.duration / m.base)
	if d < 2 || d >= maxBins/2 {
		t.Fatalf("%d bins of %d ns in 10 s: the test needs a duration in bins", d, m.base)
	}
	s := newSim(context.Background(), m, &m.strategies[0], m.seeds[0], 0)
	for k, b := range s.c.bins {
		if len(b) != d+d/8+16 {
			t.Errorf("series %d: %d bins before the run, want %d", k, len(b), d+d/8+16)
		}
	}
}
