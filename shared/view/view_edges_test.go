package view

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// The tests of this file hold the edges of what a comparison's view says
// around its verdict, where mutation testing (make mutants
// FILE=shared/view/view.go) found that a changed comparison or constant
// went unnoticed: the warnings' empty list, the table's note for a few
// seeds and for one, the seed the charts over time show, the resolution
// the attempts figure is drawn at and marked current.

// smallRun runs two strategies (once, twice) for five seconds with an
// outage, on runs seeds from 7, and returns the scenario and the result.
func smallRun(t *testing.T, runs int) (*engine.Scenario, *engine.Result) {
	t.Helper()
	sc, err := engine.Parse(fmt.Appendf(nil, `{"version": 1, "name": "small", "seed": 7, "runs": %d,
		"workload": {"clients": 10, "arrival": "uniform", "rate": 50, "duration": "5s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 100,
			"phases": [{"kind": "outage", "from": "1s", "to": "2s", "status": 503}]},
		"strategies": [{"name": "once", "max_attempts": 1}, {"name": "twice", "max_attempts": 2, "attempt_timeout": "1s"}]}`, runs))
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), sc, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sc, res
}

// TestWarningsAreAListEvenWhenEmpty: a run without warnings has an empty
// list of them in the view's JSON, not null, and a run's warnings are
// the view's, all of them.
func TestWarningsAreAListEvenWhenEmpty(t *testing.T) {
	sc, res := smallRun(t, 1)
	if len(res.Warnings) != 0 {
		t.Fatalf("the run warns: %q", res.Warnings)
	}
	res.Warnings = nil
	b, err := json.Marshal(Of(sc, res, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"warnings":[]`) {
		t.Errorf("no warnings: %s", b)
	}
	res.Warnings = []string{"first", "second"}
	if got := Of(sc, res, Options{}).Warnings; !slices.Equal(got, res.Warnings) {
		t.Errorf("warnings %q, want %q", got, res.Warnings)
	}
}

// TestSeedsNoteWithFewSeeds: below TailSeeds, several seeds' view says
// the table's numbers are means with their lowest and highest, and the
// charts over time say which seed they show; one seed's says neither.
func TestSeedsNoteWithFewSeeds(t *testing.T) {
	for _, tc := range []struct {
		runs        int
		means, note string
	}{
		{1, "", ""},
		{3, "Means over 3 seeds; the range under each value is its lowest and highest over the seeds. Charts over time show the first seed (7).", " (seed 7, the first of 3)"},
	} {
		sc, res := smallRun(t, tc.runs)
		v := Of(sc, res, Options{})
		if v.Means != tc.means {
			t.Errorf("%d seeds: means %q, want %q", tc.runs, v.Means, tc.means)
		}
		alts := map[string]string{
			"attempts": "Calls reaching the dependency per 100ms over time, one line per strategy" + tc.note,
			"outcomes": "Operations succeeded and failed, retries and refused calls over time, per strategy" + tc.note,
			"queue":    "Queue length and operations in flight over time" + tc.note,
			"latency":  "Latency percentiles by strategy",
		}
		for _, f := range v.Figures {
			if want, ok := alts[f.Name]; ok && f.Alt != want {
				t.Errorf("%d seeds: %s's alt %q, want %q", tc.runs, f.Name, f.Alt, want)
			}
		}
	}
}

// TestAttemptsResolutionChosen: the attempts figure is drawn at the
// resolution asked for when the result has it, else at 100 ms (also
// when the result has no series to offer others: one read from a file),
// and of its variants exactly the one drawn is marked current.
func TestAttemptsResolutionChosen(t *testing.T) {
	sc, res := smallRun(t, 1)
	for _, tc := range []struct {
		asked time.Duration
		want  string
	}{
		{0, "100ms"},
		{10 * time.Millisecond, "10ms"},
		{time.Second, "1s"},
		{50 * time.Millisecond, "100ms"},
	} {
		f := Of(sc, res, Options{Resolution: tc.asked}).Figures[0]
		if f.Query != "picture=attempts&res="+tc.want {
			t.Errorf("asked %v: query %q, want res=%s", tc.asked, f.Query, tc.want)
		}
		var current []string
		for _, va := range f.Variants {
			if va.Current {
				current = append(current, va.Label)
			}
		}
		if len(f.Variants) != 3 || !slices.Equal(current, []string{tc.want}) {
			t.Errorf("asked %v: %d variants, current %q, want %s of 3", tc.asked, len(f.Variants), current, tc.want)
		}
	}
	for i := range res.Strategies {
		res.Strategies[i].Series = nil
	}
	f := Of(sc, res, Options{}).Figures[0]
	if f.Query != "picture=attempts&res=100ms" || len(f.Variants) != 0 {
		t.Errorf("without series: query %q, %d variants; want res=100ms and none", f.Query, len(f.Variants))
	}
}

// TestCallsFigureWords: the calls figure's alt text lists two calls as
// "a and b", mentions the client pool only when a strategy has one, and
// one seed's names no seed.
func TestCallsFigureWords(t *testing.T) {
	calls := []engine.CallSeries{{Name: "auth"}, {Name: "db"}}
	res := &engine.Result{Seeds: []int64{1}, Strategies: []engine.StrategyResult{
		{Name: "A", Series: &engine.Series{Calls: calls}},
		{Name: "B", Series: &engine.Series{Calls: calls}},
	}}
	want := "Attempts reaching each plan call's dependency over time, one line per call (auth and db), one panel per strategy"
	if got := callsFigure(res).Alt; got != want {
		t.Errorf("without a pool: %q, want %q", got, want)
	}
	res.Strategies[1].Series.PoolInUse = []int32{1}
	want += ", with the client pool's slots in use under the panel of each strategy that has one"
	if got := callsFigure(res).Alt; got != want {
		t.Errorf("with a pool: %q, want %q", got, want)
	}
}

// TestCallGroupsComeBeforeTheRun: the plan's calls' groups follow the
// strategies' own metrics and come just before what the run cost: the
// table opens with the outcome.
func TestCallGroupsComeBeforeTheRun(t *testing.T) {
	sc, res := several(t)
	var names, calls []string
	for _, g := range Of(sc, res, Options{}).Groups {
		names = append(names, g.Name)
		if g.Call != "" {
			calls = append(calls, g.Name)
		}
	}
	i := slices.Index(names, engine.GroupRun)
	if len(calls) == 0 || names[0] != engine.GroupOutcome || i != len(names)-1 || !slices.Equal(names[i-len(calls):i], calls) {
		t.Errorf("groups %q: want %s first, then the calls' %q, then %s", names, engine.GroupOutcome, calls, engine.GroupRun)
	}
}

// TestPercentsUpToNineDecimals: a rate as near 100% or 0% as one
// operation in a hundred billion is written with all nine decimals it
// takes to keep it off them.
func TestPercentsUpToNineDecimals(t *testing.T) {
	rate, _ := MetricOf("success_rate")
	for v, want := range map[float64]string{
		1 - 1e-11: "99.999999999%",
		1e-11:     "0.000000001%",
		1 - 1e-10: "99.99999999%",
	} {
		if got := format(rate, v, true); got != want {
			t.Errorf("%v: %q, want %q", v, got, want)
		}
	}
}

// TestDescriptionsOnlyOfDescribed: the charts' legends get the
// descriptions of the strategies that have one, and nothing when none
// has.
func TestDescriptionsOnlyOfDescribed(t *testing.T) {
	sc := &engine.Scenario{Strategies: []engine.Strategy{{Name: "plain"}, {Name: "capped", Description: "3 attempts, capped backoff"}}}
	if got := Descriptions(sc); len(got) != 1 || got["capped"] != "3 attempts, capped backoff" {
		t.Errorf("descriptions %q, want capped's only", got)
	}
	if got := Descriptions(&engine.Scenario{Strategies: sc.Strategies[:1]}); got != nil {
		t.Errorf("no descriptions: %q, want nil", got)
	}
}
