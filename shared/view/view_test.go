package view

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

func TestMetricsDescribeEveryEngineMetric(t *testing.T) {
	var keys []string
	for _, m := range Metrics {
		keys = append(keys, m.Key)
		if m.Label == "" || m.Explain == "" || !slices.Contains(Groups, m.Group) {
			t.Errorf("%s: label %q, explanation %q, group %q", m.Key, m.Label, m.Explain, m.Group)
		}
	}
	if !slices.Equal(keys, engine.MetricNames()) {
		t.Errorf("view.Metrics names\n%v\nthe engine has\n%v", keys, engine.MetricNames())
	}
}

// strat makes a strategy result with the given means and, when lo/hi are
// given, ranges over seeds.
func strat(name string, metrics map[string][3]float64) engine.StrategyResult {
	st := engine.StrategyResult{Name: name, Spread: map[string]engine.MinMax{}}
	for k, v := range metrics {
		switch k {
		case "success_rate":
			st.Metrics.SuccessRate = v[0]
		case "peak_per_100ms":
			st.Metrics.PeakPer100ms = v[0]
		case "latency_p99_ms":
			st.Metrics.LatencyP99ms = v[0]
		case "dependency_calls":
			st.Metrics.DependencyCalls = v[0]
		case "gave_up_budget":
			st.Metrics.GaveUpBudget = v[0]
		default:
			panic(k)
		}
		st.Spread[k] = engine.MinMax{Min: v[1], Max: v[2]}
	}
	return st
}

func marks(r Row) string {
	var out []string
	for _, c := range r.Cells {
		out = append(out, c.Mark)
	}
	return strings.Join(out, ",")
}

func TestMarks(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		key    string
		strats []engine.StrategyResult
		want   string
	}{
		{"lower is better, ranges apart", "peak_per_100ms", []engine.StrategyResult{
			strat("A", map[string][3]float64{"peak_per_100ms": {244, 230, 250}}),
			strat("C", map[string][3]float64{"peak_per_100ms": {89, 80, 95}}),
		}, "worst,best"},
		{"ranges overlap: no mark", "peak_per_100ms", []engine.StrategyResult{
			strat("A", map[string][3]float64{"peak_per_100ms": {100, 80, 120}}),
			strat("C", map[string][3]float64{"peak_per_100ms": {95, 85, 110}}),
		}, ","},
		{"ties get the same mark", "gave_up_budget", []engine.StrategyResult{
			strat("A", map[string][3]float64{"gave_up_budget": {0, 0, 0}}),
			strat("B", map[string][3]float64{"gave_up_budget": {0, 0, 0}}),
		}, ","}, // no direction: never marked
		{"equal values share best", "dependency_calls", []engine.StrategyResult{
			strat("A", map[string][3]float64{"dependency_calls": {10, 10, 10}}),
			strat("B", map[string][3]float64{"dependency_calls": {10, 10, 10}}),
			strat("C", map[string][3]float64{"dependency_calls": {30, 30, 30}}),
		}, "best,best,worst"},
		{"latency from giving up sooner is not best", "latency_p99_ms", []engine.StrategyResult{
			strat("A", map[string][3]float64{"latency_p99_ms": {50, 50, 50}, "success_rate": {0.90, 0.90, 0.90}}),
			strat("C", map[string][3]float64{"latency_p99_ms": {900, 900, 900}, "success_rate": {0.99, 0.99, 0.99}}),
		}, ",worst"},
		{"latency best when succeeding as often", "latency_p99_ms", []engine.StrategyResult{
			strat("A", map[string][3]float64{"latency_p99_ms": {50, 50, 50}, "success_rate": {0.99, 0.99, 0.99}}),
			strat("C", map[string][3]float64{"latency_p99_ms": {900, 900, 900}, "success_rate": {0.99, 0.99, 0.99}}),
		}, "best,worst"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			m, _ := MetricOf(tc.key)
			r, _ := row(tc.strats, m, false)
			if got := marks(r); got != tc.want {
				t.Errorf("marks %q, want %q", got, tc.want)
			}
		})
	}
}

func TestZeroRowsAreFolded(t *testing.T) {
	strats := []engine.StrategyResult{
		strat("A", map[string][3]float64{"success_rate": {1, 1, 1}}),
		strat("B", map[string][3]float64{"success_rate": {0.5, 0.5, 0.5}}),
	}
	groups, folded := table(strats, false)
	if len(groups) != 1 || len(groups[0].Rows) != 1 || groups[0].Rows[0].Key != "success_rate" {
		t.Errorf("groups %+v, want only the success rate", groups)
	}
	if !slices.Contains(folded, "Duplicates") || slices.Contains(folded, "Success rate") {
		t.Errorf("folded %v", folded)
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		focus  []string
		strats []engine.StrategyResult
		runs   int
		want   []string // parts the verdict must contain
	}{
		{"a winner and its price in success", []string{"peak_per_100ms"}, []engine.StrategyResult{
			strat("A", map[string][3]float64{"peak_per_100ms": {244, 230, 250}, "success_rate": {0.984, 0.98, 0.99}}),
			strat("C", map[string][3]float64{"peak_per_100ms": {89, 80, 95}, "success_rate": {0.998, 0.99, 1}}),
		}, 10, []string{"C has the lowest peak calls in 100 ms: 89 calls against A's 244 calls", "while succeeding as often as any: 99.8% against A's 98.4%", "Means over 10 seeds"}},
		{"the price is against the strategy that succeeds most, not only the worst on the focus", []string{"peak_per_100ms"}, []engine.StrategyResult{
			strat("A", map[string][3]float64{"peak_per_100ms": {244, 230, 250}, "success_rate": {0.984, 0.977, 0.991}}),
			strat("C", map[string][3]float64{"peak_per_100ms": {89, 80, 95}, "success_rate": {0.998, 0.993, 1}}),
			strat("D", map[string][3]float64{"peak_per_100ms": {62, 56, 74}, "success_rate": {0.983, 0.977, 0.989}}),
		}, 10, []string{"D has the lowest peak calls in 100 ms: 62 calls", "The price: it succeeds less often, 98.3% against C's 99.8%"}},
		{"no winner inside overlapping ranges", []string{"peak_per_100ms"}, []engine.StrategyResult{
			strat("A", map[string][3]float64{"peak_per_100ms": {100, 80, 120}}),
			strat("C", map[string][3]float64{"peak_per_100ms": {95, 85, 110}}),
		}, 5, []string{"No strategy is clearly best on peak calls in 100 ms", "overlap"}},
		{"a winner that succeeds less often pays for it", []string{"dependency_calls"}, []engine.StrategyResult{
			strat("A", map[string][3]float64{"dependency_calls": {300, 300, 300}, "success_rate": {0.99, 0.99, 0.99}}),
			strat("D", map[string][3]float64{"dependency_calls": {100, 100, 100}, "success_rate": {0.80, 0.80, 0.80}}),
		}, 1, []string{"D has the lowest calls reaching the dependency", "The price: it succeeds less often, 80% against A's 99%"}},
		{"latency low from giving up is said so", []string{"latency_p99_ms"}, []engine.StrategyResult{
			strat("A", map[string][3]float64{"latency_p99_ms": {50, 50, 50}, "success_rate": {0.90, 0.90, 0.90}}),
			strat("C", map[string][3]float64{"latency_p99_ms": {900, 900, 900}, "success_rate": {0.99, 0.99, 0.99}}),
		}, 1, []string{"A has the lowest latency p99", "gives up sooner"}},
		{"the next focus metric when the first does not decide", []string{"success_rate", "dependency_calls"}, []engine.StrategyResult{
			strat("A", map[string][3]float64{"success_rate": {1, 1, 1}, "dependency_calls": {300, 300, 300}}),
			strat("B", map[string][3]float64{"success_rate": {1, 1, 1}, "dependency_calls": {100, 100, 100}}),
		}, 1, []string{"Every strategy has the same success rate: 100%.", "B has the lowest calls reaching the dependency: 100 against A's 300"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got := verdict(tc.strats, tc.focus, tc.runs)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("verdict %q\nlacks %q", got, w)
				}
			}
		})
	}
}

func TestFocusWithoutReportFocus(t *testing.T) {
	sc := &engine.Scenario{}
	res := &engine.Result{Strategies: []engine.StrategyResult{
		strat("A", map[string][3]float64{"success_rate": {0.99, 0.985, 0.995}, "peak_per_100ms": {240, 230, 250}}),
		strat("C", map[string][3]float64{"success_rate": {0.99, 0.985, 0.995}, "peak_per_100ms": {90, 80, 95}}),
	}}
	if got := focus(sc, res); got[0] != "peak_per_100ms" {
		t.Errorf("focus %v, want the peak first (the success rates overlap)", got)
	}
	sc.Report.Focus = []string{"attempts"}
	if got := focus(sc, res); !slices.Equal(got, []string{"attempts"}) {
		t.Errorf("focus %v, want the scenario's", got)
	}
}

func TestBuiltinsHaveAVerdictAndFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every built-in")
	}
	for _, b := range scenarios.All() {
		sc, err := scenarios.Parse(b.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Run(context.Background(), sc, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := Of(sc, res, Options{})
		if v.Verdict == "" || len(v.Figures) == 0 || len(sc.Report.Focus) == 0 || v.Focus[0] != sc.Report.Focus[0] {
			t.Errorf("%s: verdict %q, %d figures, focus %v", b.Slug, v.Verdict, len(v.Figures), v.Focus)
		}
	}
}

func ExampleOf() {
	b, _ := scenarios.Get("layered-retries")
	sc, _ := scenarios.Parse(b.Scenario)
	res, _ := engine.Run(context.Background(), sc, engine.Options{})
	v := Of(sc, res, Options{})
	fmt.Println(v.Verdict)
	for _, f := range v.Figures[:2] {
		fmt.Println(f.Query)
	}
	// Output:
	// top-only has the lowest amplification: 3 calls per operation against 5x3's 243 calls per operation. Every operation fails, whatever the strategy.
	// picture=attempts&res=100ms
	// picture=compare&metric=amplification
}

// TestNotApplicableReadsNA: a metric that does not apply (recovery, where
// no fault ends: the runaway cascade's load-dependent errors) reads n/a in
// every cell, unmarked, and is not folded away as zero.
func TestNotApplicableReadsNA(t *testing.T) {
	b, ok := scenarios.Get("runaway-cascade")
	if !ok {
		t.Fatal("no runaway-cascade")
	}
	sc, err := engine.Parse(b.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs = 1
	sc.Workload.Duration = engine.Duration(60 * time.Second)
	res, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := Of(sc, res, Options{})
	found := false
	for _, g := range v.Groups {
		for _, r := range g.Rows {
			if r.Metric.Key != "recovered" && r.Metric.Key != "recovery_s" {
				continue
			}
			found = true
			for i, c := range r.Cells {
				if c.Value != "n/a" || c.Mark != "" || c.Spread != "" {
					t.Errorf("%s, %s: %+v, want n/a unmarked", r.Metric.Key, v.Strategies[i].Name, c)
				}
			}
		}
	}
	if !found {
		t.Errorf("no recovery row; folded %q", v.Folded)
	}
}

// TestNotRecoveredReadsSo: in failover-incident, every-layer and jitter
// do not recover while the load arrives (recovered 0): their recovery
// time reads "not recovered under load", never a number, and the verdict
// on recovery time (the scenario's focus) ranks them last instead of
// calling every strategy's recovery 0 s; one-layer and budget keep their
// times.
func TestNotRecoveredReadsSo(t *testing.T) {
	b, ok := scenarios.Get("failover-incident")
	if !ok {
		t.Fatal("no failover-incident")
	}
	sc, err := engine.Parse(b.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	v := Of(sc, res, Options{})
	want := map[string]string{"every-layer": engine.NotRecovered, "one-layer": "0", "jitter": engine.NotRecovered, "budget": "0"}
	found := false
	for _, g := range v.Groups {
		for _, r := range g.Rows {
			if r.Metric.Key != "recovery_s" {
				continue
			}
			found = true
			for i, c := range r.Cells {
				if name := v.Strategies[i].Name; c.Value != want[name] {
					t.Errorf("recovery_s, %s: %q, want %q", name, c.Value, want[name])
				}
			}
		}
	}
	if !found {
		t.Errorf("no recovery_s row; folded %q", v.Folded)
	}
	if strings.Contains(v.Verdict, "same recovery time") || !strings.Contains(v.Verdict, engine.NotRecovered) {
		t.Errorf("verdict: %s", v.Verdict)
	}
}
