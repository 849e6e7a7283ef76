package view

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

// several runs testdata/several.json: two dependencies, three plan calls
// (one with a fallback, one optional), a pool, a bulkhead and shedding.
func several(t *testing.T) (*engine.Scenario, *engine.Result) {
	t.Helper()
	b, err := os.ReadFile("testdata/several.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sc, res
}

func TestCallGroups(t *testing.T) {
	sc, res := several(t)
	v := Of(sc, res, Options{})
	var names []string
	for _, g := range v.Groups {
		names = append(names, g.Name)
	}
	want := []string{"Calls to a", "Calls to b, class sheddable plus", "Call a2 to a, class sheddable plus"}
	i := slices.Index(names, want[0])
	if i < 0 || !slices.Equal(names[i:i+3], want) || names[len(names)-1] != engine.GroupRun {
		t.Fatalf("groups %q: want %q before %q", names, want, engine.GroupRun)
	}
	for _, g := range v.Groups[i : i+3] {
		if g.Call == "" {
			t.Errorf("%s: no call named", g.Name)
		}
		for _, r := range g.Rows {
			if r.Label == "" || r.Explain == "" || len(r.Cells) != 2 {
				t.Errorf("%s, %s: label %q, explanation %q, %d cells", g.Name, r.Key, r.Label, r.Explain, len(r.Cells))
			}
			if !slices.ContainsFunc(CallMetrics, func(m Metric) bool { return m.Key == r.Key }) {
				t.Errorf("%s: row %s is not a call metric", g.Name, r.Key)
			}
		}
	}
	// The numbers are the call's, with its spread over the two seeds.
	a := v.Groups[i]
	k := slices.IndexFunc(a.Rows, func(r Row) bool { return r.Key == "success_rate" })
	if k < 0 {
		t.Fatal("calls to a: no success rate")
	}
	c := res.Strategies[0].Calls[0]
	if got, want := a.Rows[k].Cells[0].Value, format(a.Rows[k].Metric, c.Metrics.SuccessRate, false); got != want {
		t.Errorf("success rate of calls to a: %s, want %s", got, want)
	}
	if mm := c.Spread["success_rate"]; mm.Min != mm.Max && a.Rows[k].Cells[0].Spread == "" {
		t.Error("success rate of calls to a: no spread")
	}
	// Units are shown as for the strategies' rows.
	for _, r := range a.Rows {
		if r.Key == "latency_p99_ms" && r.Shown != "ms" {
			t.Errorf("call latency shown in %q", r.Shown)
		}
	}
	// Rows zero for every strategy fold, saying whose they are.
	if !slices.ContainsFunc(v.Folded, func(s string) bool { return strings.HasSuffix(s, "(call a2 to a, class sheddable plus)") }) {
		t.Errorf("folded %q: nothing of call a2", v.Folded)
	}
}

func TestCallMetricsDescribeEveryField(t *testing.T) {
	var st engine.StrategyResult
	st.Calls = []engine.CallResult{{Metrics: engine.CallMetrics{Calls: 1, Succeeded: 2, FellBack: 3, Failed: 4, Abandoned: 5, SuccessRate: 6, Attempts: 7, DependencyCalls: 8,
		Rejections: 9, Shed: 10, FastFailed: 11, PoolRejected: 12, BulkheadRejected: 13, LatencyP50ms: 14, LatencyP99ms: 15, GoodputPerS: 16}}}
	var keys []string
	for _, m := range CallMetrics {
		keys = append(keys, m.Key)
	}
	if !slices.Equal(keys, engine.CallMetricNames()) {
		t.Fatalf("call metrics described\n%v\nthe engine has\n%v", keys, engine.CallMetricNames())
	}
	for i, m := range CallMetrics {
		if v, _, _ := callValue(&st.Calls[0], m.Key); v != float64(i+1) {
			t.Errorf("%s: %v, want field %d in the engine's order", m.Key, v, i+1)
		}
		if m.Label == "" || m.Explain == "" {
			t.Errorf("%s: no words", m.Key)
		}
	}
}

func TestCallMarksByDirection(t *testing.T) {
	call := func(rate, lat, attempts float64) engine.CallResult {
		return engine.CallResult{Name: "pay", Dependency: "payment", Class: engine.ClassCritical,
			Metrics: engine.CallMetrics{Calls: 10, SuccessRate: rate, LatencyP99ms: lat, Attempts: attempts}}
	}
	strats := []engine.StrategyResult{
		{Name: "A", Calls: []engine.CallResult{call(0.9, 100, 30)}},
		{Name: "B", Calls: []engine.CallResult{call(0.5, 10, 12)}},
	}
	groups, _ := callGroups(strats)
	if len(groups) != 1 || groups[0].Name != "Call pay to payment" {
		t.Fatalf("groups %+v", groups)
	}
	got := map[string]string{}
	for _, r := range groups[0].Rows {
		got[r.Key] = marks(r)
	}
	// Higher success is best; fewer attempts is best; the lower latency of
	// B, which succeeds less often, is no one's best.
	if got["success_rate"] != "best,worst" || got["attempts"] != "worst,best" || got["latency_p99_ms"] != "worst," {
		t.Errorf("marks %v", got)
	}
}

// TestCallGroupOfZerosFolds: a call whose every metric is zero for every
// strategy has no group of its own, only its folded rows; a call with one
// figure not zero keeps its group, with that one row.
func TestCallGroupOfZerosFolds(t *testing.T) {
	strats := []engine.StrategyResult{{Name: "A"}, {Name: "B"}}
	for i := range strats {
		strats[i].Calls = []engine.CallResult{
			{Name: "pay", Dependency: "payment", Metrics: engine.CallMetrics{Calls: 10}},
			{Name: "recs", Dependency: "recs"},
		}
	}
	groups, folded := callGroups(strats)
	if len(groups) != 1 || groups[0].Name != "Call pay to payment" || len(groups[0].Rows) != 1 || groups[0].Rows[0].Key != "calls" {
		t.Errorf("groups %+v: want only the call pay, with its one row not zero", groups)
	}
	for _, m := range CallMetrics {
		if !slices.Contains(folded, m.Label+" (calls to recs)") {
			t.Errorf("folded %q: lacks %s of the call recs", folded, m.Label)
		}
	}
}

func TestVerdictOnAbsentOrUndirectedMetrics(t *testing.T) {
	strats := []engine.StrategyResult{{Name: "A"}, {Name: "B"}}
	// Closed-loop clients: B made fewer operations, so its fewer failures
	// say nothing by themselves.
	strats[0].Metrics.Operations, strats[1].Metrics.Operations = 100, 90
	strats[0].Metrics.SuccessRate, strats[1].Metrics.SuccessRate = 0.9, 0.67
	strats[0].Metrics.Failed, strats[1].Metrics.Failed = 10, 30
	strats[0].Metrics.DegradedRate, strats[1].Metrics.DegradedRate = 0.1, 0.02
	got := verdict(strats, []string{"hedges", "failed", "degraded_rate"}, 1)
	for _, want := range []string{"Hedged copies sent: none, whatever the strategy.", "Failed: A 10, B 30.", "Degraded rate: A 10%, B 2%."} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, " has the ") || strings.Contains(got, "share the") {
		t.Errorf("verdict %q names a winner", got)
	}
	// With as many operations each, fewer failed is better.
	strats[1].Metrics.Operations = 100
	if got := verdict(strats, []string{"failed"}, 1); !strings.HasPrefix(got, "A has the fewest failed operations: 10 against B's 30, and it succeeds more often: 90% against B's 67%.") {
		t.Errorf("verdict %q", got)
	}
	strats[0].Metrics.PoolRejected, strats[1].Metrics.PoolRejected = 5, 50
	strats[0].Calls = []engine.CallResult{{Dependency: "a"}, {Dependency: "b"}}
	if got := verdict(strats, []string{"shed", "pool_rejected"}, 1); !strings.HasPrefix(got, "Shed by priority: none, whatever the strategy. A has the lowest refused by the client's pool: 5 against B's 50") {
		t.Errorf("verdict %q", got)
	}
}

func TestCallsFigure(t *testing.T) {
	sc, res := several(t)
	v := Of(sc, res, Options{})
	var names []string
	for _, f := range v.Figures {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"attempts", "compare", "outcomes", "calls", "queue", "latency"}) {
		t.Fatalf("figures %q", names)
	}
	f := v.Figures[3]
	if f.Query != "picture=calls" || f.Options.Picture != "calls" ||
		f.Alt != "Attempts reaching each plan call's dependency over time, one line per call (a, b and a2), one panel per strategy, with the client pool's slots in use under the panel of each strategy that has one (seed 0, the first of 2)" {
		t.Errorf("calls figure %+v", f)
	}
	if !strings.HasPrefix(v.Figures[0].Alt, "Calls reaching the dependencies per") {
		t.Errorf("attempts alt %q", v.Figures[0].Alt)
	}
	// A result with one call offers no calls figure.
	b, _ := scenarios.Get("e03b-synchronized-recovery")
	sc1, _ := b.Parse()
	res1, err := engine.Run(context.Background(), sc1, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Of(sc1, res1, Options{}).Figures {
		if f.Name == "calls" {
			t.Error("a one-call result offers the calls figure")
		}
	}
}
