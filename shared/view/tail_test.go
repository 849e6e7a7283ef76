package view

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
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
