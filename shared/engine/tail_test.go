package engine

import (
	"context"
	"slices"
	"testing"
)

// tailScenario is small and cheap, with enough seeds for rare ones: a
// short freeze that some seeds' arrivals turn into a burst of retries.
const tailScenario = `{"version": 1, "name": "tail", "runs": 200,
	"workload": {"clients": 20, "arrival": "poisson", "rate": 100, "duration": "3s"},
	"dependency": {"workers": 4, "service_time": {"kind": "exponential", "mean": "30ms"}, "queue_capacity": 20,
		"phases": [{"kind": "freeze", "from": "1s", "to": "1.3s"}]},
	"report": {"thresholds": [{"metric": "peak_per_10ms", "op": "<=", "value": 20}, {"metric": "success_rate", "op": ">=", "value": 0.99}]},
	"strategies": [
		{"name": "full", "max_attempts": 4, "attempt_timeout": "100ms", "backoff": {"kind": "exponential", "base": "20ms", "max": "200ms"}, "jitter": {"kind": "full"}},
		{"name": "none", "max_attempts": 4, "attempt_timeout": "100ms", "backoff": {"kind": "constant", "base": "20ms"}}]}`

// TestTailAgainstSeedByRun checks the quantiles, the worst seeds and the
// thresholds' counts against each seed run on its own and counted here.
func TestTailAgainstSeedByRun(t *testing.T) {
	sc, err := Parse([]byte(tailScenario))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Seeds) != 200 {
		t.Fatalf("%d seeds, want 200", len(res.Seeds))
	}
	// Each seed alone: the per-seed values, computed independently.
	per := make([][]Metrics, len(sc.Strategies))
	for _, seed := range res.Seeds {
		one := *sc
		one.Runs, one.Seed = 1, seed
		r, err := Run(context.Background(), &one, Options{NoSeries: true})
		if err != nil {
			t.Fatal(err)
		}
		for si := range r.Strategies {
			per[si] = append(per[si], r.Strategies[si].Metrics)
		}
	}
	crossedAny := false
	for si, st := range res.Strategies {
		peaks := make([]float64, 0, len(per[si]))
		var over, under int
		worst := SeedValue{Seed: -1}
		for j, m := range per[si] {
			peaks = append(peaks, m.PeakPer10ms)
			if m.PeakPer10ms > 20 {
				over++
			}
			if m.SuccessRate < 0.99 {
				under++
			}
			if worst.Seed < 0 || m.PeakPer10ms > worst.Value {
				worst = SeedValue{Seed: res.Seeds[j], Value: m.PeakPer10ms}
			}
		}
		crossedAny = crossedAny || (over > 0 && over < len(peaks))
		if got := st.Thresholds; len(got) != 2 || got[0].Crossed != over || got[1].Crossed != under || got[0].Seeds != 200 {
			t.Errorf("%s: thresholds %+v, counted %d seeds over the peak and %d under the success rate", st.Name, got, over, under)
		}
		if want := float64(over) / 200; st.Thresholds[0].Share != want {
			t.Errorf("%s: share %v, want %v", st.Name, st.Thresholds[0].Share, want)
		}
		if got := st.WorstSeeds["peak_per_10ms"]; got != worst {
			t.Errorf("%s: worst seed %+v, want %+v", st.Name, got, worst)
		}
		// Nearest rank over 200 sorted values: indexes 9, 99 and 189.
		slices.Sort(peaks)
		want := Quantiles{P5: peaks[9], P50: peaks[99], P95: peaks[189]}
		if got := st.Quantiles["peak_per_10ms"]; got != want {
			t.Errorf("%s: quantiles %+v, want %+v", st.Name, got, want)
		}
	}
	if !crossedAny {
		t.Error("no strategy crosses the peak threshold on some seeds and not others: the test checks nothing rare")
	}
}

// TestQuantilesNearestRank pins the definition on small lists.
func TestQuantilesNearestRank(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want Quantiles
	}{
		{[]float64{3, 1}, Quantiles{1, 1, 3}},
		{[]float64{5, 4, 3, 2, 1}, Quantiles{1, 3, 5}},
		{[]float64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, Quantiles{1, 10, 19}},
	} {
		if got := QuantilesOf(tc.xs); got != tc.want {
			t.Errorf("QuantilesOf(%v) = %+v, want %+v", tc.xs, got, tc.want)
		}
	}
}

// TestWorstSeedIsTheFirstOfATie: when several seeds are equally worst, the
// worst seed reported is the first of them, whichever way the metric gets
// worse, so that the seed a user is sent to replay does not depend on how
// many ties follow it.
func TestWorstSeedIsTheFirstOfATie(t *testing.T) {
	runs := []runOutput{
		{metrics: Metrics{SuccessRate: 0.95, PeakPer10ms: 3}},
		{metrics: Metrics{SuccessRate: 0.9, PeakPer10ms: 5}},
		{metrics: Metrics{SuccessRate: 0.9, PeakPer10ms: 5}},
		{metrics: Metrics{SuccessRate: 0.97, PeakPer10ms: 4}},
	}
	_, worst, _ := tail(runs, []uint64{11, 22, 33, 44}, &Scenario{})
	for key, want := range map[string]SeedValue{
		"success_rate":  {Seed: 22, Value: 0.9}, // lower is worse
		"peak_per_10ms": {Seed: 22, Value: 5},   // higher is worse
	} {
		if got := worst[key]; got != want {
			t.Errorf("%s: worst seed %+v, want %+v", key, got, want)
		}
	}
}
