package view

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

const tailScenario = `{"version": 1, "name": "tail", "runs": %d,
	"workload": {"clients": 20, "arrival": "poisson", "rate": 100, "duration": "3s"},
	"dependency": {"workers": 4, "service_time": {"kind": "exponential", "mean": "30ms"}, "queue_capacity": 20,
		"phases": [{"kind": "freeze", "from": "1s", "to": "1.3s"}]},
	"report": {"focus": ["peak_per_10ms"], "thresholds": [{"metric": "peak_per_10ms", "op": "<=", "value": 20}]},
	"strategies": [
		{"name": "full", "max_attempts": 4, "attempt_timeout": "100ms", "backoff": {"kind": "exponential", "base": "20ms", "max": "200ms"}, "jitter": {"kind": "full"}},
		{"name": "none", "max_attempts": 4, "attempt_timeout": "100ms", "backoff": {"kind": "constant", "base": "20ms"}}]}`

func runTail(t *testing.T, runs int) (*engine.Result, *View) {
	t.Helper()
	sc, err := engine.Parse([]byte(strings.Replace(tailScenario, "%d", strconv.Itoa(runs), 1)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	return res, Of(sc, res, Options{})
}

func peakRow(t *testing.T, v *View) Row {
	t.Helper()
	for _, g := range v.Groups {
		for _, r := range g.Rows {
			if r.Key == "peak_per_10ms" {
				return r
			}
		}
	}
	t.Fatal("no peak_per_10ms row")
	return Row{}
}

// TestTailCellsWorstSeedAndThresholds checks that 20 seeds or more show
// each cell's 5th to 95th percentile, fewer its lowest and highest; that
// the worst seed of the focus metric links to that seed alone; and that
// each threshold gets its sentence with the engine's count.
func TestTailCellsWorstSeedAndThresholds(t *testing.T) {
	res, v := runTail(t, 40)
	st := &res.Strategies[1]
	q, mm := st.Quantiles["peak_per_10ms"], st.Spread["peak_per_10ms"]
	if q.P5 == mm.Min && q.P95 == mm.Max {
		t.Fatalf("the percentiles %+v are the extremes %+v: the test cannot tell them apart", q, mm)
	}
	m, _ := MetricOf("peak_per_10ms")
	if got, want := peakRow(t, v).Cells[1].Spread, format(m, q.P5, false)+"–"+format(m, q.P95, false); got != want {
		t.Errorf("with 40 seeds the cell's range is %q, want the percentiles %q", got, want)
	}
	if !strings.Contains(v.Means, "5th to 95th percentile") {
		t.Errorf("means %q do not say the ranges are percentiles", v.Means)
	}
	if v.Worst == nil || len(v.Worst.Seeds) != 2 {
		t.Fatalf("worst %+v, want one seed per strategy", v.Worst)
	}
	w := st.WorstSeeds["peak_per_10ms"]
	if got := v.Worst.Seeds[1]; got.Seed != w.Seed || got.Query != "seed="+strconv.Itoa(int(w.Seed))+"&runs=1" || w.Value != mm.Max {
		t.Errorf("worst seed %+v, engine's %+v, most %v", got, w, mm.Max)
	}
	th := st.Thresholds[0]
	want := "none has peak calls in 10 ms above 20 calls on "
	if len(v.Thresholds) != 2 || !strings.HasPrefix(v.Thresholds[1], want) || !strings.HasSuffix(v.Thresholds[1], "of the 40 seeds ("+strconv.Itoa(th.Crossed)+").") {
		t.Errorf("threshold sentences %q, want the second to start %q and count %d", v.Thresholds, want, th.Crossed)
	}

	res, v = runTail(t, 10)
	mm = res.Strategies[1].Spread["peak_per_10ms"]
	if got, want := peakRow(t, v).Cells[1].Spread, format(m, mm.Min, false)+"–"+format(m, mm.Max, false); got != want {
		t.Errorf("with 10 seeds the cell's range is %q, want the extremes %q", got, want)
	}
}

// TestThresholdOnOneSeed: with one seed, a threshold's sentence says
// whether that seed crosses it, not "on 0% of the 1 seeds (0)".
func TestThresholdOnOneSeed(t *testing.T) {
	res, v := runTail(t, 1)
	if len(v.Thresholds) != 2 {
		t.Fatalf("threshold sentences %q", v.Thresholds)
	}
	for i, s := range v.Thresholds {
		st := &res.Strategies[i]
		want := "On its one seed, " + st.Name + " does not have peak calls in 10 ms above 20 calls."
		if st.Thresholds[0].Crossed == 1 {
			want = "On its one seed, " + st.Name + " has peak calls in 10 ms above 20 calls."
		}
		if s != want {
			t.Errorf("sentence %q, want %q", s, want)
		}
	}
}

// withTails gives st the quantiles q (metric: p5, p95) over its seeds.
func withTails(st engine.StrategyResult, q map[string][2]float64) engine.StrategyResult {
	st.Quantiles = map[string]engine.Quantiles{}
	for k, v := range q {
		st.Quantiles[k] = engine.Quantiles{P5: v[0], P50: (v[0] + v[1]) / 2, P95: v[1]}
	}
	return st
}

// TestTailMarks: from TailSeeds seeds, the table's marks and the verdict
// compare the ranges the cells show, the 5th to 95th percentiles: two
// strategies whose lowest and highest overlap but whose percentiles do not
// get marks and a winner; below TailSeeds, the same strategies (whose
// cells show the lowest and highest) get neither.
func TestTailMarks(t *testing.T) {
	strats := []engine.StrategyResult{
		withTails(strat("A", map[string][3]float64{"peak_per_100ms": {50, 30, 120}, "success_rate": {0.99, 0.99, 0.99}}),
			map[string][2]float64{"peak_per_100ms": {40, 60}, "success_rate": {0.99, 0.99}}),
		withTails(strat("B", map[string][3]float64{"peak_per_100ms": {100, 60, 150}, "success_rate": {0.99, 0.99, 0.99}}),
			map[string][2]float64{"peak_per_100ms": {85, 115}, "success_rate": {0.99, 0.99}}),
	}
	peak := func(groups []Group) Row {
		for _, g := range groups {
			for _, r := range g.Rows {
				if r.Key == "peak_per_100ms" {
					return r
				}
			}
		}
		t.Fatal("no peak_per_100ms row")
		return Row{}
	}
	for _, tc := range []struct {
		runs                    int
		spreads, marks, verdict string
	}{
		{TailSeeds, "40–60 85–115", "best,worst", "A has the lowest peak calls in 100 ms: 50 calls against B's 100 calls. Every strategy succeeds on 99% of operations. Means over 20 seeds; on peak calls in 100 ms their 5th to 95th percentiles do not overlap."},
		{TailSeeds - 1, "30–120 60–150", ",", "No strategy is clearly best on peak calls in 100 ms: A 50 calls, B 100 calls, and their ranges over the 19 seeds overlap."},
	} {
		groups, _ := table(strats, tc.runs >= TailSeeds)
		r := peak(groups)
		if got := r.Cells[0].Spread + " " + r.Cells[1].Spread; got != tc.spreads {
			t.Errorf("%d seeds: the cells show %q, want %q", tc.runs, got, tc.spreads)
		}
		if got := marks(r); got != tc.marks {
			t.Errorf("%d seeds: marks %q, want %q", tc.runs, got, tc.marks)
		}
		if got := verdict(strats, []string{"peak_per_100ms"}, tc.runs); got != tc.verdict {
			t.Errorf("%d seeds: verdict\n%q, want\n%q", tc.runs, got, tc.verdict)
		}
	}

	// E03-B on 20 seeds: A's success rate reaches C's over the seeds, but
	// its 5th to 95th percentiles stay below: A is not marked best
	// with B and C, as it would be by the lowest and highest.
	b, _ := scenarios.Get("e03b-synchronized-recovery")
	sc, err := engine.Parse(b.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs = TailSeeds
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	a, c := res.Strategies[0], res.Strategies[2]
	if mm, mc := a.Spread["success_rate"], c.Spread["success_rate"]; mm.Max < mc.Min {
		t.Fatalf("A's and C's success rates %+v and %+v do not overlap: the test cannot tell the ranges apart", mm, mc)
	}
	v := Of(sc, res, Options{})
	var row Row
	for _, g := range v.Groups {
		for _, r := range g.Rows {
			if r.Key == "success_rate" {
				row = r
			}
		}
	}
	if got := marks(row); got != ",best,best,worst" {
		t.Errorf("E03-B's success rate on 20 seeds: marks %q, want \",best,best,worst\"", got)
	}
	if !strings.Contains(v.Means, "5th to 95th percentile over the seeds, which the marks and the verdict compare") {
		t.Errorf("means %q do not say what the marks compare", v.Means)
	}
}
