package view

import (
	"encoding/json"
	"fmt"
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
			"A has the lowest peak calls in 100 ms: 15 calls against B's 25 calls. Every strategy succeeds on 99% of operations. Means over 5 seeds; on peak calls in 100 ms the ranges do not overlap."},
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
	want := "A has the highest success rate: 99.5% against B's 98%. Means over 20 seeds; on success rate their 5th to 95th percentiles do not overlap."
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

// oneSeed makes a strategy result of one seed from metrics by their JSON names.
func oneSeed(t *testing.T, name string, metrics map[string]float64) engine.StrategyResult {
	t.Helper()
	b, err := json.Marshal(metrics)
	if err != nil {
		t.Fatal(err)
	}
	st := engine.StrategyResult{Name: name}
	if err := json.Unmarshal(b, &st.Metrics); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestVerdictSentences: the verdict's sentences in full, one case for
// each of the rules that decide their words.
func TestVerdictSentences(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		focus  []string
		strats []map[string]float64
		runs   int
		want   string
	}{
		{"the only strategy", []string{"success_rate"}, []map[string]float64{
			{"success_rate": 0.9996},
		}, 1, "A, the only strategy: success rate 99.96%; add another to compare."},
		{"a count nothing happened to", []string{"duplicates", "dependency_calls"}, []map[string]float64{
			{"success_rate": 1, "dependency_calls": 300},
			{"success_rate": 1, "dependency_calls": 100},
		}, 1, "Duplicates: none, whatever the strategy. B has the lowest calls reaching the dependency: 100 against A's 300. Every operation succeeds, whatever the strategy."},
		{"one seed says no means", []string{"dependency_calls"}, []map[string]float64{
			{"success_rate": 0.9, "dependency_calls": 300},
			{"success_rate": 0.9, "dependency_calls": 100},
		}, 1, "B has the lowest calls reaching the dependency: 100 against A's 300. Every strategy succeeds on 90% of operations."},
		{"two seeds say their ranges", []string{"dependency_calls"}, []map[string]float64{
			{"success_rate": 0.9, "dependency_calls": 300},
			{"success_rate": 0.9, "dependency_calls": 100},
		}, 2, "B has the lowest calls reaching the dependency: 100 against A's 300. Every strategy succeeds on 90% of operations. Means over 2 seeds; on calls reaching the dependency the ranges do not overlap."},
		{"failing a quarter is failing many", []string{"peak_per_100ms"}, []map[string]float64{
			{"success_rate": 0.75, "peak_per_100ms": 50},
			{"success_rate": 0.99, "peak_per_100ms": 90},
		}, 1, "A has the lowest peak calls in 100 ms only by failing operations: 50 calls against B's 90 calls. It succeeds on 75% of its operations against B's 99%."},
		{"failing less than a quarter is a price", []string{"peak_per_100ms"}, []map[string]float64{
			{"success_rate": 0.76, "peak_per_100ms": 50},
			{"success_rate": 0.99, "peak_per_100ms": 90},
		}, 1, "A has the lowest peak calls in 100 ms: 50 calls against B's 90 calls. The price: it succeeds less often, 76% against B's 99%."},
		{"duplicates and late applications are no clean win", []string{"success_rate"}, []map[string]float64{
			{"success_rate": 0.99, "duplicates": 1, "applied_after_give_up": 2},
			{"success_rate": 0.9},
			{"success_rate": 0.98, "duplicates": 3},
		}, 1, "A has the highest success rate: 99% against B's 90%. Not a clean win: the dependency applied A's operations 1 extra time (duplicates, such as double charges), and 2 of its failed operations all the same."},
		{"several duplicates", []string{"success_rate"}, []map[string]float64{
			{"success_rate": 0.99, "duplicates": 3},
			{"success_rate": 0.9, "applied_after_give_up": 2},
		}, 1, "A has the highest success rate: 99% against B's 90%. Not a clean win: the dependency applied A's operations 3 extra times (duplicates, such as double charges)."},
		{"late applications alone", []string{"success_rate"}, []map[string]float64{
			{"success_rate": 0.99, "applied_after_give_up": 2},
			{"success_rate": 0.9},
		}, 1, "A has the highest success rate: 99% against B's 90%. Not a clean win: the dependency applied 2 of A's failed operations all the same."},
		{"judged in the affected window", []string{"peak_per_100ms"}, []map[string]float64{
			{"operations": 100, "affected_operations": 10, "affected_success_rate": 0.5, "success_rate": 0.95, "peak_per_100ms": 50},
			{"operations": 100, "affected_operations": 10, "affected_success_rate": 0.9, "success_rate": 0.99, "peak_per_100ms": 90},
		}, 1, "A has the lowest peak calls in 100 ms only by failing operations: 50 calls against B's 90 calls. It succeeds on 50% of its operations in the affected window against B's 90%."},
		{"a window as wide as the run is the run", []string{"peak_per_100ms"}, []map[string]float64{
			{"operations": 100, "affected_operations": 100, "affected_success_rate": 0.5, "success_rate": 0.8, "peak_per_100ms": 50},
			{"operations": 100, "affected_operations": 100, "affected_success_rate": 0.9, "success_rate": 0.99, "peak_per_100ms": 90},
		}, 1, "A has the lowest peak calls in 100 ms: 50 calls against B's 90 calls. The price: it succeeds less often, 80% against B's 99%."},
		{"fewest failed operations", []string{"failed"}, []map[string]float64{
			{"operations": 100, "failed": 10, "success_rate": 0.9},
			{"operations": 100, "failed": 1, "success_rate": 0.99},
		}, 1, "B has the fewest failed operations: 1 against A's 10, and it succeeds more often: 99% against A's 90%."},
		{"tied on success, the winner's calls are its price", []string{"success_rate"}, []map[string]float64{
			{"success_rate": 0.99, "dependency_calls": 300},
			{"success_rate": 0.99, "dependency_calls": 100},
			{"success_rate": 0.9, "dependency_calls": 100},
		}, 1, "A and B share the highest success rate (A 99%, B 99%) against C's 90%. The price: 300 calls reach the dependency against B's 100, which succeeds as often."},
		{"tied on success, fewer calls than the worst", []string{"success_rate"}, []map[string]float64{
			{"success_rate": 0.99, "dependency_calls": 100},
			{"success_rate": 0.9, "dependency_calls": 300},
		}, 1, "A has the highest success rate: 99% against B's 90%, with fewer calls reaching the dependency: 100 against B's 300."},
		{"failed operations of different many: the values", []string{"failed"}, []map[string]float64{
			{"operations": 100, "failed": 10, "success_rate": 0.9},
			{"operations": 50, "failed": 5, "success_rate": 0.9},
		}, 1, "Failed: A 10, B 5."},
	} {
		var strats []engine.StrategyResult
		for i, m := range tc.strats {
			strats = append(strats, oneSeed(t, string(rune('A'+i)), m))
		}
		if got := verdict(strats, tc.focus, tc.runs); got != tc.want {
			t.Errorf("%s: verdict\n%q, want\n%q", tc.desc, got, tc.want)
		}
	}
}

// TestFormatBothTellsApart: two values that format writes alike are
// written with the table's precision, with their unit, so that a sentence
// never says one is higher than an equal-looking other; equal ones stay as
// format writes them.
func TestFormatBothTellsApart(t *testing.T) {
	p99, _ := MetricOf("latency_p99_ms")
	rate, _ := MetricOf("success_rate")
	calls, _ := MetricOf("dependency_calls")
	for _, tc := range []struct {
		m      Metric
		a, b   float64
		wa, wb string
	}{
		{p99, 12.3456, 12.3449, "12.346 ms", "12.345 ms"},
		{p99, 12.3, 12.3, "12.3 ms", "12.3 ms"},
		{rate, 0.50004, 0.50001, "50.00%", "50.00%"},
		{calls, 100.04, 100.01, "100", "100"},
		{calls, 10.0004, 10.0001, "10", "10"},
	} {
		if a, b := formatBoth(tc.m, tc.a, tc.b); a != tc.wa || b != tc.wb {
			t.Errorf("%s %v and %v: %q and %q, want %q and %q", tc.m.Key, tc.a, tc.b, a, b, tc.wa, tc.wb)
		}
	}
}

// TestSweepValueAsTheTableShowsIt: a swept value is written as the sweep
// table shows it: a number or a string as itself, anything else as JSON.
func TestSweepValueAsTheTableShowsIt(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{0.5, "0.5"},
		{"lifo", "lifo"},
		{map[string]any{"kind": "full"}, `{"kind":"full"}`},
		{nil, "null"},
	} {
		if got := sweepValue(tc.v); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestVerdictCallGains: when every strategy succeeds as often, the winner
// of a plan of two calls is said to gain on the call where it succeeds
// more often, beyond the seeds' spread.
func TestVerdictCallGains(t *testing.T) {
	call := func(name string, rate float64) engine.CallResult {
		return engine.CallResult{Name: name, Dependency: name, Metrics: engine.CallMetrics{Calls: 100, SuccessRate: rate}}
	}
	a := oneSeed(t, "A", map[string]float64{"success_rate": 0.9, "peak_per_100ms": 50})
	a.Calls = []engine.CallResult{call("payment", 0.95), call("catalog", 0.9)}
	b := oneSeed(t, "B", map[string]float64{"success_rate": 0.9, "peak_per_100ms": 90})
	b.Calls = []engine.CallResult{call("payment", 0.8), call("catalog", 0.9)}
	want := "A has the lowest peak calls in 100 ms: 50 calls against B's 90 calls, and its calls to payment succeed more often: 95% against B's 80%. Every strategy succeeds on 90% of operations."
	if got := verdict([]engine.StrategyResult{a, b}, []string{"peak_per_100ms"}, 1); got != want {
		t.Errorf("verdict\n%q, want\n%q", got, want)
	}
}

// TestVerdictWorstSeedPrice: from TailSeeds seeds, a winner whose success
// rate is within the others' percentiles pays for a worst seed below the
// worst of the strategy that succeeds most often; an equal worst seed is
// no price.
func TestVerdictWorstSeedPrice(t *testing.T) {
	for _, tc := range []struct {
		worst float64
		want  string
	}{
		{0.90, "A has the lowest peak calls in 100 ms: 50 calls against B's 90 calls. The price: on its worst seed it succeeds on 90% of operations against 94% on B's worst. Means over 20 seeds; on peak calls in 100 ms their 5th to 95th percentiles do not overlap."},
		{0.94, "A has the lowest peak calls in 100 ms: 50 calls against B's 90 calls, while succeeding as often as B within the seeds' spread: 98% against B's 99%. Means over 20 seeds; on peak calls in 100 ms their 5th to 95th percentiles do not overlap."},
	} {
		a := withTails(strat("A", map[string][3]float64{"peak_per_100ms": {50, 40, 60}, "success_rate": {0.98, tc.worst, 1}}),
			map[string][2]float64{"peak_per_100ms": {45, 55}, "success_rate": {0.95, 1}})
		a.WorstSeeds = map[string]engine.SeedValue{"success_rate": {Seed: 7, Value: tc.worst}}
		b := withTails(strat("B", map[string][3]float64{"peak_per_100ms": {90, 80, 100}, "success_rate": {0.99, 0.94, 1}}),
			map[string][2]float64{"peak_per_100ms": {85, 95}, "success_rate": {0.96, 1}})
		b.WorstSeeds = map[string]engine.SeedValue{"success_rate": {Seed: 3, Value: 0.94}}
		if got := verdict([]engine.StrategyResult{a, b}, []string{"peak_per_100ms"}, TailSeeds); got != tc.want {
			t.Errorf("A's worst seed %v: verdict\n%q, want\n%q", tc.worst, got, tc.want)
		}
	}
}

// TestVerdictCallsPriceAgainstTheFirst: the strategy that succeeds as
// often with fewer calls is named whatever its place in the scenario, the
// first too.
func TestVerdictCallsPriceAgainstTheFirst(t *testing.T) {
	strats := []engine.StrategyResult{
		strat("A", map[string][3]float64{"success_rate": {0.99, 0.98, 1}, "dependency_calls": {100, 100, 100}}),
		strat("B", map[string][3]float64{"success_rate": {0.995, 0.99, 1}, "dependency_calls": {300, 300, 300}}),
		strat("C", map[string][3]float64{"success_rate": {0.9, 0.89, 0.91}, "dependency_calls": {100, 100, 100}}),
	}
	want := "B and A share the highest success rate (B 99.5%, A 99%) against C's 90%. The price: 300 calls reach the dependency against A's 100, which succeeds as often. Means over 5 seeds; on success rate the ranges do not overlap."
	if got := verdict(strats, []string{"success_rate"}, 5); got != want {
		t.Errorf("verdict\n%q, want\n%q", got, want)
	}
}

// TestVerdictLatencyPriceFromAFifth: a winner's successful operations
// slower at the 99th percentile than those of a strategy that succeeds as
// often are a price from a fifth slower on, not below.
func TestVerdictLatencyPriceFromAFifth(t *testing.T) {
	for _, tc := range []struct {
		p99  float64
		want string
	}{
		{120, "A has the lowest peak calls in 100 ms: 50 calls against B's 90 calls. The price: its successful operations are slower, 120 ms at the 99th percentile against B's 100 ms, which succeeds as often. Every strategy succeeds on 90% of operations."},
		{119, "A has the lowest peak calls in 100 ms: 50 calls against B's 90 calls. Every strategy succeeds on 90% of operations."},
	} {
		strats := []engine.StrategyResult{
			oneSeed(t, "A", map[string]float64{"success_rate": 0.9, "peak_per_100ms": 50, "success_latency_p99_ms": tc.p99}),
			oneSeed(t, "B", map[string]float64{"success_rate": 0.9, "peak_per_100ms": 90, "success_latency_p99_ms": 100}),
		}
		if got := verdict(strats, []string{"peak_per_100ms"}, 1); got != tc.want {
			t.Errorf("A's p99 %v ms: verdict\n%q, want\n%q", tc.p99, got, tc.want)
		}
	}
}

// TestVerdictNamesTheDependencies: "dependency" for a plan that calls one,
// "dependencies" for one that calls several.
func TestVerdictNamesTheDependencies(t *testing.T) {
	for _, tc := range []struct {
		deps []string
		want string
	}{
		{[]string{"payment"}, "A has the highest success rate: 99% against B's 90%, with fewer calls reaching the dependency: 100 against B's 300."},
		{[]string{"payment", "payment"}, "A has the highest success rate: 99% against B's 90%, with fewer calls reaching the dependency: 100 against B's 300."},
		{[]string{"payment", "catalog"}, "A has the highest success rate: 99% against B's 90%, with fewer calls reaching the dependencies: 100 against B's 300."},
	} {
		a := oneSeed(t, "A", map[string]float64{"success_rate": 0.99, "dependency_calls": 100})
		b := oneSeed(t, "B", map[string]float64{"success_rate": 0.9, "dependency_calls": 300})
		for i, d := range tc.deps {
			c := engine.CallResult{Name: fmt.Sprint("call", i), Dependency: d, Metrics: engine.CallMetrics{Calls: 100, SuccessRate: 1}}
			a.Calls, b.Calls = append(a.Calls, c), append(b.Calls, c)
		}
		if got := verdict([]engine.StrategyResult{a, b}, []string{"success_rate"}, 1); got != tc.want {
			t.Errorf("calls to %v: verdict\n%q, want\n%q", tc.deps, got, tc.want)
		}
	}
}

// TestTouchingRangesShareTheBest: a strategy whose highest success rate
// over the seeds is the best one's lowest shares the best mark with it.
func TestTouchingRangesShareTheBest(t *testing.T) {
	strats := []engine.StrategyResult{
		strat("A", map[string][3]float64{"success_rate": {0.95, 0.9, 0.97}}),
		strat("B", map[string][3]float64{"success_rate": {0.99, 0.97, 1}}),
		strat("C", map[string][3]float64{"success_rate": {0.5, 0.5, 0.5}}),
	}
	m, _ := MetricOf("success_rate")
	r, _ := row(strats, m, false)
	if got := marks(r); got != "best,best,worst" {
		t.Errorf("marks %q, want \"best,best,worst\"", got)
	}
}
