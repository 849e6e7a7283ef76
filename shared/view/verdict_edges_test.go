package view

import (
	"slices"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// The tests of this file hold the verdict's and the marks' edges, where
// mutation testing (make mutants FILE=shared/view/verdict.go) found that a
// changed comparison or constant went unnoticed: touching ranges, equal
// percentiles, the rates' inversion when choosing the focus, the 20-seed
// boundary outside the table, percents next to 0% and 100%, and the
// sweep's sentences.

// TestTouchingRangesAreTied: two strategies whose ranges over the seeds
// meet at one value are tied, as overlapping ones are: no marks, no
// winner; apart by a hair, they get both.
func TestTouchingRangesAreTied(t *testing.T) {
	for _, tc := range []struct {
		desc            string
		a, b            [3]float64
		marks, sentence string
	}{
		{"touching", [3]float64{15, 10, 20}, [3]float64{25, 20, 30}, ",",
			"No strategy is clearly best on peak calls in 100 ms: A 15 calls, B 25 calls, and their ranges over the 5 seeds overlap."},
		{"touching the other way", [3]float64{25, 20, 30}, [3]float64{15, 10, 20}, ",",
			"No strategy is clearly best on peak calls in 100 ms: A 25 calls, B 15 calls, and their ranges over the 5 seeds overlap."},
		{"apart", [3]float64{15, 10, 19.5}, [3]float64{25, 20, 30}, "best,worst",
			"A has the lowest peak calls in 100 ms: 15 calls against B's 25 calls. Every strategy succeeds on 99% of operations. Means over 5 seeds; the ranges do not overlap."},
	} {
		strats := []engine.StrategyResult{
			strat("A", map[string][3]float64{"peak_per_100ms": tc.a, "success_rate": {0.99, 0.99, 0.99}}),
			strat("B", map[string][3]float64{"peak_per_100ms": tc.b, "success_rate": {0.99, 0.99, 0.99}}),
		}
		m, _ := MetricOf("peak_per_100ms")
		r, _ := row(strats, m, false)
		if got := marks(r); got != tc.marks {
			t.Errorf("%s: marks %q, want %q", tc.desc, got, tc.marks)
		}
		if got := verdict(strats, []string{"peak_per_100ms"}, 5); got != tc.sentence {
			t.Errorf("%s: verdict\n%q, want\n%q", tc.desc, got, tc.sentence)
		}
	}
}

// TestEqualPercentilesLeaveItToTheMeans: from TailSeeds seeds, two
// strategies whose 5th and 95th percentiles are all 100% (they fail on a
// seed or two) are not tied by them: their means decide the marks and the
// verdict.
func TestEqualPercentilesLeaveItToTheMeans(t *testing.T) {
	strats := []engine.StrategyResult{
		withTails(strat("A", map[string][3]float64{"success_rate": {0.995, 0.9, 1}}), map[string][2]float64{"success_rate": {1, 1}}),
		withTails(strat("B", map[string][3]float64{"success_rate": {0.98, 0.6, 1}}), map[string][2]float64{"success_rate": {1, 1}}),
	}
	m, _ := MetricOf("success_rate")
	r, _ := row(strats, m, true)
	if got := marks(r); got != "best,worst" {
		t.Errorf("marks %q, want \"best,worst\"", got)
	}
	want := "A has the highest success rate: 99.5% against B's 98%. Means over 20 seeds; their 5th to 95th percentiles do not overlap."
	if got := verdict(strats, []string{"success_rate"}, TailSeeds); got != want {
		t.Errorf("verdict\n%q, want\n%q", got, want)
	}
}

// TestFocusCountsRatesByWhatTheyLeaveOut: without report.focus, the
// verdict is about the metrics whose best and worst differ most; a rate
// counts by what it leaves out, so 98% against 99.8% succeeding (2%
// against 0.2% failing: ten times) comes before peaks of 100 against 50
// calls (twice), and 50% against 60% (50% against 40% failing) after them.
func TestFocusCountsRatesByWhatTheyLeaveOut(t *testing.T) {
	for _, tc := range []struct {
		a, b float64
		want []string
	}{
		{0.98, 0.998, []string{"success_rate", "peak_per_100ms"}},
		{0.5, 0.6, []string{"peak_per_100ms", "success_rate"}},
	} {
		res := &engine.Result{Strategies: []engine.StrategyResult{
			strat("A", map[string][3]float64{"success_rate": {tc.a, tc.a, tc.a}, "peak_per_100ms": {100, 100, 100}}),
			strat("B", map[string][3]float64{"success_rate": {tc.b, tc.b, tc.b}, "peak_per_100ms": {50, 50, 50}}),
		}}
		if got := focus(&engine.Scenario{}, res); !slices.Equal(got, tc.want) {
			t.Errorf("success rates %v and %v: focus %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestFocusComparesPercentilesFromTwentySeeds: the focus, like the marks,
// compares the 5th to 95th percentiles from TailSeeds seeds: peaks whose
// lowest and highest overlap but whose percentiles do not are a focus on
// 20 seeds, not on 19 (where nothing differs, and the focus is the success
// rate).
func TestFocusComparesPercentilesFromTwentySeeds(t *testing.T) {
	strats := []engine.StrategyResult{
		withTails(strat("A", map[string][3]float64{"peak_per_100ms": {50, 30, 120}, "success_rate": {0.99, 0.99, 0.99}}),
			map[string][2]float64{"peak_per_100ms": {40, 60}, "success_rate": {0.99, 0.99}}),
		withTails(strat("B", map[string][3]float64{"peak_per_100ms": {100, 60, 150}, "success_rate": {0.99, 0.99, 0.99}}),
			map[string][2]float64{"peak_per_100ms": {85, 115}, "success_rate": {0.99, 0.99}}),
	}
	for runs, want := range map[int][]string{TailSeeds: {"peak_per_100ms"}, TailSeeds - 1: {"success_rate"}} {
		res := &engine.Result{Seeds: make([]int64, runs), Strategies: strats}
		if got := focus(&engine.Scenario{}, res); !slices.Equal(got, want) {
			t.Errorf("%d seeds: focus %v, want %v", runs, got, want)
		}
	}
}

// TestPercentsStayOffTheEnds: a rate is written with as many decimals as
// keep it off 100% and 0% unless it is exactly that, and without trailing
// zeros; milliseconds from a second on are seconds.
func TestPercentsStayOffTheEnds(t *testing.T) {
	rate, _ := MetricOf("success_rate")
	p99, _ := MetricOf("latency_p99_ms")
	peak, _ := MetricOf("peak_per_100ms")
	for _, tc := range []struct {
		m    Metric
		v    float64
		want string
	}{
		{rate, 1, "100%"},
		{rate, 0, "0%"},
		{rate, 0.5, "50%"},
		{rate, 0.984, "98.4%"},
		{rate, 0.9996, "99.96%"},
		{rate, 0.99996, "99.996%"},
		{rate, 0.999996, "99.9996%"},
		{rate, 0.9999999, "99.99999%"},
		{rate, 0.0004, "0.04%"},
		{rate, 0.00004, "0.004%"},
		{rate, 0.000004, "0.0004%"},
		{p99, 999, "999 ms"},
		{p99, 1000, "1 s"},
		{p99, 1500, "1.5 s"},
		{peak, 89, "89 calls"},
	} {
		if got := format(tc.m, tc.v, true); got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.m.Key, tc.v, got, tc.want)
		}
	}
}

// sweepOf makes a sweep of load.rps over 100 and 200 on seeds seeds,
// each point's strategies from success rates (mean, lowest, highest).
func sweepOf(seeds int, names []string, points ...[][3]float64) *engine.Result {
	res := &engine.Result{Seeds: make([]int64, seeds), SweepPath: "load.rps"}
	for k, p := range points {
		pt := engine.SweepPoint{Value: float64(100 * (k + 1))}
		for i, sr := range p {
			pt.Strategies = append(pt.Strategies, strat(names[i], map[string][3]float64{"success_rate": sr}))
		}
		res.Sweep = append(res.Sweep, pt)
	}
	return res
}

// TestSweepVerdict: a sweep's verdict names the best at each value, or
// once when it is the same at every value, in the grammar of one or
// several; a strategy best only by failing is said to be so.
func TestSweepVerdict(t *testing.T) {
	ab, abc := []string{"A", "B"}, []string{"A", "B", "C"}
	for _, tc := range []struct {
		desc string
		res  *engine.Result
		want string
	}{
		{"the same best everywhere", sweepOf(1, ab,
			[][3]float64{{0.9, 0.9, 0.9}, {0.99, 0.99, 0.99}},
			[][3]float64{{0.8, 0.8, 0.8}, {0.95, 0.95, 0.95}}),
			"B has the highest success rate at every value of load.rps."},
		{"two best everywhere", sweepOf(1, abc,
			[][3]float64{{0.99, 0.99, 0.99}, {0.99, 0.99, 0.99}, {0.9, 0.9, 0.9}},
			[][3]float64{{0.95, 0.95, 0.95}, {0.95, 0.95, 0.95}, {0.8, 0.8, 0.8}}),
			"A and B have the highest success rate at every value of load.rps."},
		{"the best changes", sweepOf(1, ab,
			[][3]float64{{0.99, 0.99, 0.99}, {0.9, 0.9, 0.9}},
			[][3]float64{{0.8, 0.8, 0.8}, {0.95, 0.95, 0.95}}),
			"The highest success rate by load.rps: 100 → A; 200 → B."},
		{"no clear best at one value", sweepOf(3, ab,
			[][3]float64{{0.99, 0.98, 1}, {0.985, 0.97, 0.99}},
			[][3]float64{{0.8, 0.8, 0.8}, {0.95, 0.95, 0.95}}),
			"The highest success rate by load.rps: 100 → no clear best; 200 → B."},
		{"no clear best anywhere", sweepOf(3, ab,
			[][3]float64{{0.99, 0.98, 1}, {0.985, 0.97, 0.99}},
			[][3]float64{{0.9, 0.8, 1}, {0.95, 0.9, 1}}),
			"No strategy is clearly best on success rate at any value of load.rps."},
		{"one strategy", sweepOf(1, ab,
			[][3]float64{{0.99, 0.99, 0.99}},
			[][3]float64{{0.9996, 0.9996, 0.9996}}),
			"Success rate of A by load.rps: 100 → 99%; 200 → 99.96%."},
	} {
		if got := sweepVerdict(tc.res, "success_rate"); got != tc.want {
			t.Errorf("%s: sweep verdict\n%q, want\n%q", tc.desc, got, tc.want)
		}
	}
}

// TestSweepVerdictComparesPercentilesFromTwentySeeds: at each value of a
// sweep, the best are told apart by their 5th to 95th percentiles from
// TailSeeds seeds, by their lowest and highest below.
func TestSweepVerdictComparesPercentilesFromTwentySeeds(t *testing.T) {
	for runs, want := range map[int]string{
		TailSeeds:     "B has the highest success rate at every value of load.rps.",
		TailSeeds - 1: "No strategy is clearly best on success rate at any value of load.rps.",
	} {
		res := sweepOf(runs, []string{"A", "B"}, [][3]float64{{0.9, 0.5, 0.99}, {0.99, 0.9, 1}})
		for i, q := range [][2]float64{{0.85, 0.95}, {0.97, 1}} {
			res.Sweep[0].Strategies[i] = withTails(res.Sweep[0].Strategies[i], map[string][2]float64{"success_rate": q})
		}
		if got := sweepVerdict(res, "success_rate"); got != want {
			t.Errorf("%d seeds: sweep verdict\n%q, want\n%q", runs, got, want)
		}
	}
}

// TestSweepVerdictSaysBestOnlyByFailing: at a value where the lowest peak
// comes from failing half the operations, the sweep's verdict says so, with
// the success rates, instead of naming a winner.
func TestSweepVerdictSaysBestOnlyByFailing(t *testing.T) {
	res := &engine.Result{Seeds: make([]int64, 1), SweepPath: "load.rps", Sweep: []engine.SweepPoint{
		{Value: 100.0, Strategies: []engine.StrategyResult{
			strat("A", map[string][3]float64{"peak_per_100ms": {50, 50, 50}, "success_rate": {0.5, 0.5, 0.5}}),
			strat("B", map[string][3]float64{"peak_per_100ms": {90, 90, 90}, "success_rate": {0.99, 0.99, 0.99}}),
		}},
		{Value: 200.0, Strategies: []engine.StrategyResult{
			strat("A", map[string][3]float64{"peak_per_100ms": {50, 50, 50}, "success_rate": {0.8, 0.8, 0.8}}),
			strat("B", map[string][3]float64{"peak_per_100ms": {90, 90, 90}, "success_rate": {0.99, 0.99, 0.99}}),
		}},
	}}
	want := "The lowest peak calls in 100 ms by load.rps: 100 → A only by failing operations (A succeeds on 50% against B's 99%); 200 → A."
	if got := sweepVerdict(res, "peak_per_100ms"); got != want {
		t.Errorf("sweep verdict\n%q, want\n%q", got, want)
	}
}
