package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// searchE03B returns the built-in E03-B on its first runs seeds with the
// search given as JSON.
func searchE03B(tb testing.TB, runs int, search string) *Scenario {
	tb.Helper()
	sc := longE03B(tb, 1)
	sc.Runs = runs
	var s Search
	if err := decodeStrict([]byte(`{"version": 1, "search": `+search+`}`), &struct {
		Version int     `json:"version"`
		Search  *Search `json:"search"`
	}{Search: &s}, nil); err != nil {
		tb.Fatal(err)
	}
	sc.Search = &s
	return sc
}

// smallSearch varies strategy C's attempts, backoff base and jitter: 18
// candidates.
const smallSearch = `{
	"strategy": "C",
	"knobs": [
		{"path": "max_attempts", "values": [2, 3, 4]},
		{"path": "backoff.base", "values": ["100ms", "200ms", "500ms"]},
		{"path": "jitter.kind", "values": ["full", "equal"]}
	],
	"objectives": [
		{"metric": "affected_success_rate", "goal": "max"},
		{"metric": "peak_per_100ms", "goal": "min"}
	]
}`

func runSearch(tb testing.TB, sc *Scenario, opt Options) *Result {
	tb.Helper()
	if err := sc.Validate(); err != nil {
		tb.Fatal(err)
	}
	opt.NoSeries = true
	res, err := Run(context.Background(), sc, opt)
	if err != nil {
		tb.Fatal(err)
	}
	if res.Search == nil {
		tb.Fatal("no search in the result")
	}
	return res
}

// dominatesOn reports whether a is as good as b on every objective and
// better on one.
func dominatesOn(objs []Objective, a, b *Metrics) bool {
	strict := false
	for _, o := range objs {
		x, _ := a.Metric(o.Metric)
		y, _ := b.Metric(o.Metric)
		if o.Goal == GoalMin {
			x, y = -x, -y
		}
		if x < y {
			return false
		}
		strict = strict || x > y
	}
	return strict
}

func TestSearchFrontier(t *testing.T) {
	sc := searchE03B(t, 4, smallSearch)
	res := runSearch(t, sc, Options{})
	s := res.Search
	if s.Evaluated != 18 || s.Method != "successive_halving" {
		t.Errorf("evaluated %d candidates by %q, want 18 by successive_halving", s.Evaluated, s.Method)
	}
	// 4 seeds: 18 on 1, 9 on 2, 8 (the floor) on 4.
	want := []SearchRound{{1, 18}, {2, 9}, {4, 8}}
	if !slices.Equal(s.Rounds, want) || s.Simulations != 18+9+8*2 {
		t.Errorf("rounds %v, %d simulations; want %v, %d", s.Rounds, s.Simulations, want, 18+9+16)
	}
	if len(s.Frontier) == 0 || s.Recommendation == nil {
		t.Fatalf("no frontier or no recommendation without constraints: %+v", s)
	}
	seen := map[string]bool{}
	for i, a := range s.Frontier {
		key, _ := json.Marshal(a.Settings)
		if seen[string(key)] {
			t.Errorf("frontier point %d repeats %s", i, key)
		}
		seen[string(key)] = true
		if len(a.Settings) != 3 {
			t.Errorf("frontier point %d sets %v, not the 3 knobs", i, a.Settings)
		}
		if mm, ok := a.Spread["peak_per_100ms"]; !ok || mm.Min > a.Metrics.PeakPer100ms || mm.Max < a.Metrics.PeakPer100ms {
			t.Errorf("frontier point %d: spread %v does not hold the mean %v", i, mm, a.Metrics.PeakPer100ms)
		}
		for j, b := range s.Frontier {
			if dominatesOn(sc.Search.Objectives, &b.Metrics, &a.Metrics) {
				t.Errorf("frontier point %d %s is dominated by point %d %v", i, key, j, b.Settings)
			}
		}
		if i > 0 && s.Frontier[i-1].Metrics.AffectedSuccessRate < a.Metrics.AffectedSuccessRate {
			t.Errorf("frontier not in order of the first objective at %d", i)
		}
	}
	rec := s.Recommendation
	if !bytes.Equal(mustJSON(t, rec.SearchPoint), mustJSON(t, s.Frontier[0])) {
		t.Errorf("recommendation %v is not the frontier's first point %v", rec.Settings, s.Frontier[0].Settings)
	}
	if !strings.Contains(rec.Reason, "highest mean affected_success_rate") || !strings.Contains(rec.Reason, "over 4 seeds") {
		t.Errorf("reason %q", rec.Reason)
	}
	// The point's metrics are those of its strategy run alone.
	st, err := sc.SearchCandidate(rec.Settings)
	if err != nil {
		t.Fatal(err)
	}
	alone := *sc
	alone.Search, alone.Strategies = nil, []Strategy{st}
	ar := runSearchless(t, &alone)
	if got, want := mustJSON(t, rec.Metrics), mustJSON(t, ar.Strategies[0].Metrics); !bytes.Equal(got, want) {
		t.Errorf("recommended metrics\n%s\ndiffer from its strategy's alone\n%s", got, want)
	}
	// The scenario's own strategies are reported as without the search.
	plain := *sc
	plain.Search = nil
	if got, want := mustJSON(t, res.Strategies), mustJSON(t, runSearchless(t, &plain).Strategies); !bytes.Equal(got, want) {
		t.Error("the search changed the scenario's own strategies' results")
	}
}

func runSearchless(tb testing.TB, sc *Scenario) *Result {
	tb.Helper()
	res, err := Run(context.Background(), sc, Options{NoSeries: true})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// TestSearchCommonRandomNumbers: a candidate that is the strategy itself
// measures what the strategy does.
func TestSearchCommonRandomNumbers(t *testing.T) {
	sc := searchE03B(t, 3, `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [4]}],
		"objectives": [{"metric": "peak_per_100ms", "goal": "min"}]}`)
	res := runSearch(t, sc, Options{})
	if len(res.Search.Frontier) != 1 {
		t.Fatalf("frontier of %d points, want 1", len(res.Search.Frontier))
	}
	got := res.Search.Frontier[0]
	want := res.Strategies[2]
	if !bytes.Equal(mustJSON(t, got.Metrics), mustJSON(t, want.Metrics)) || !bytes.Equal(mustJSON(t, got.Spread), mustJSON(t, want.Spread)) {
		t.Errorf("candidate C measures %+v, strategy C %+v", got.Metrics, want.Metrics)
	}
}

// TestSearchDeterministic: a search, and one across variants, give the
// same bytes whatever the parallelism.
func TestSearchDeterministic(t *testing.T) {
	for _, tc := range []struct{ name, search string }{{"search", smallSearch}, {"across variants", smallAcross}} {
		name, search := tc.name, tc.search
		var outs [][]byte
		for _, par := range []int{1, 2, 1} {
			res := runSearch(t, searchE03B(t, 4, search), Options{Parallelism: par})
			outs = append(outs, mustJSON(t, res))
		}
		for i := 1; i < len(outs); i++ {
			if !bytes.Equal(outs[0], outs[i]) {
				t.Fatalf("%s: run %d differs from run 0", name, i)
			}
		}
	}
}

func TestSearchConstraints(t *testing.T) {
	sc := searchE03B(t, 4, smallSearch)
	sc.Search.Constraints = []Constraint{{"peak_per_100ms", OpAtMost, 60}, {"affected_success_rate", OpAtLeast, 0.5}}
	s := runSearch(t, sc, Options{}).Search
	if s.Recommendation == nil {
		t.Fatalf("no recommendation: %s", s.Note)
	}
	for _, p := range append(s.Frontier, s.Recommendation.SearchPoint) {
		for _, c := range sc.Search.Constraints {
			if x, _ := p.Metrics.Metric(c.Metric); !c.Meets(x) {
				t.Errorf("point %v has %s %v, against %s", p.Settings, c.Metric, x, c.String())
			}
		}
	}
	if s.Feasible < len(s.Frontier) || !strings.Contains(s.Recommendation.Reason, "that meet peak_per_100ms <= 60 and affected_success_rate >= 0.5") {
		t.Errorf("%d feasible, %d on the frontier; reason %q", s.Feasible, len(s.Frontier), s.Recommendation.Reason)
	}

	// No calls at all cannot be had.
	sc.Search.Constraints = []Constraint{{"dependency_calls", OpAtMost, 0}}
	s = runSearch(t, sc, Options{}).Search
	if s.Recommendation != nil || len(s.Frontier) != 0 || s.Feasible != 0 ||
		!strings.HasPrefix(s.Note, "None of the 8 candidates of the last round meets dependency_calls <= 0 on average over 4 seeds; the closest, ") {
		t.Errorf("impossible constraint: recommendation %v, frontier %d, note %q", s.Recommendation, len(s.Frontier), s.Note)
	}
}

func TestSearchInvalid(t *testing.T) {
	objs := `"objectives": [{"metric": "peak_per_100ms", "goal": "min"}]`
	for _, tc := range []struct {
		desc, search, path, msg string
	}{
		{"unknown strategy", `{"strategy": "Z", "knobs": [{"path": "max_attempts", "values": [2]}], ` + objs + `}`,
			"search.strategy", `"Z" is not the name of a strategy of the scenario; they are "A", "B", "C", "D"`},
		{"no knobs", `{"strategy": "C", "knobs": [], ` + objs + `}`, "search.knobs", "is empty"},
		{"bad path", `{"strategy": "C", "knobs": [{"path": "backoff.base.", "values": ["1s"]}], ` + objs + `}`,
			"search.knobs[0].path", `"backoff.base." is not a path such as "dependency.error_rate" or "strategies[1].max_attempts": a dot at an end`},
		{"name", `{"strategy": "C", "knobs": [{"path": "name", "values": ["x"]}], ` + objs + `}`,
			"search.knobs[0].path", "changes nothing in a simulation"},
		{"twice", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2]}, {"path": "max_attempts", "values": [3]}], ` + objs + `}`,
			"search.knobs[1].path", "is also the path of search.knobs[0]"},
		{"no values", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": []}], ` + objs + `}`,
			"search.knobs[0].values", "lists 0 values; give 1..32"},
		{"no objectives", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2]}], "objectives": []}`,
			"search.objectives", "is empty"},
		{"metric", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2]}], "objectives": [{"metric": "latency_p99", "goal": "min"}]}`,
			"search.objectives[0].metric", `"latency_p99" is not a metric name (metrics: operations,`},
		{"goal", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2]}], "objectives": [{"metric": "retries", "goal": "less"}]}`,
			"search.objectives[0].goal", `"less" is not one of "max", "min"`},
		{"op", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2]}], ` + objs + `, "constraints": [{"metric": "retries", "op": "<", "value": 3}]}`,
			"search.constraints[0].op", `"<" is not one of "<=", ">="`},
		{"budget", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2]}], ` + objs + `, "budget": 5000}`,
			"search.budget", "5000 is out of range 1..1024"},
		{"over budget", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 3, 4]}, {"path": "backoff.base", "values": ["1ms", "2ms"]}], ` + objs + `, "budget": 5}`,
			"search.knobs", "give 6 candidates (3 × 2 values, every combination); the budget allows 5"},
		{"value", `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, -1]}], ` + objs + `}`,
			"search.knobs[0].values[1]", "-1 at strategies[2].max_attempts is out of range 0..100"},
		{"value's type", `{"strategy": "C", "knobs": [{"path": "backoff.base", "values": [200]}], ` + objs + `}`,
			"search.knobs[0].values[0]", "at strategies[2].backoff.base 200 is not a duration string"},
		{"path past a list", `{"strategy": "C", "knobs": [{"path": "layers[0].max_attempts", "values": [2]}], ` + objs + `}`,
			"search.knobs[0].path", `"layers[0].max_attempts" has index [0], which does not exist`},
		{"combination", `{"strategy": "C", "knobs": [{"path": "backoff.base", "values": ["100ms", "1s"]}, {"path": "backoff.max", "values": ["2s", "500ms"]}], ` + objs + `}`,
			"search.knobs", `give a candidate that is not valid, backoff.base "1s", backoff.max "500ms": at strategies[2].backoff.max "500ms" is below base 1s`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			err := searchE03B(t, 2, tc.search).Validate()
			es := AsErrors(err)
			if len(es) == 0 {
				t.Fatalf("valid; want %s: %s", tc.path, tc.msg)
			}
			if es[0].Path != tc.path || !strings.Contains(es[0].Value+" "+es[0].Message, tc.msg) {
				t.Errorf("got %v\nwant %s: ...%s...", err, tc.path, tc.msg)
			}
		})
	}
	// Candidates × the strategy's size are bounded before any is read.
	long := searchE03B(t, 2, `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 3, 4, 5, 6, 7, 8, 9]},
		{"path": "backoff.base", "values": ["1ms", "2ms", "3ms", "4ms", "5ms", "6ms", "7ms", "8ms"]},
		{"path": "backoff.max", "values": ["2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s", "11s", "12s", "13s", "14s", "15s", "16s", "17s"]}], "budget": 1024, `+objs+`}`)
	long.Strategies[2].Description = strings.Repeat("x", 5000)
	if es := AsErrors(long.Validate()); len(es) != 1 || es[0].Path != "search.knobs" || !strings.Contains(es[0].Message, "give 1024 candidates of a strategy of up to ") {
		t.Errorf("a long strategy: %v", es)
	}
	// A value is checked with the other knobs' first values: jitter for
	// strategy A, which has no backoff, with the backoff the search gives.
	withBackoff := searchE03B(t, 2, `{"strategy": "A", "knobs": [{"path": "backoff", "values": [{"kind": "exponential", "base": "100ms"}]},
		{"path": "jitter.kind", "values": ["full", "equal"]}], `+objs+`}`)
	if err := withBackoff.Validate(); err != nil {
		t.Errorf("jitter with the search's backoff: %v", err)
	}
	sc := searchE03B(t, 2, smallSearch)
	sc.Sweep = &Sweep{Path: "runs", Values: []json.RawMessage{json.RawMessage("1")}}
	if es := AsErrors(sc.Validate()); len(es) != 1 || es[0].Path != "search" {
		t.Errorf("search and sweep: %v", es)
	}
	// Decode names an unknown field of a search by its path.
	_, err := Decode([]byte(`{"version": 1, "search": {"strategy": "C", "knob": []}}`))
	if es := AsErrors(err); len(es) == 0 || es[0].Path != "search.knob" {
		t.Errorf("unknown field: %v", err)
	}
}

// TestSearchCost: the estimate counts every candidate on every seed, and
// a search over the limit is refused before anything runs.
func TestSearchCost(t *testing.T) {
	knob := func(n int) *Scenario {
		// Values that cost the same: the backoff changes no estimate.
		values := strings.Join([]string{`"100ms"`, `"200ms"`, `"300ms"`, `"400ms"`}[:n], ", ")
		return searchE03B(t, 4, `{"strategy": "C", "knobs": [{"path": "backoff.base", "values": [`+values+`]}], "objectives": [{"metric": "retries", "goal": "min"}]}`)
	}
	one, two, four := knob(1), knob(2), knob(4)
	plain := *one
	plain.Search = nil
	base := Estimate(&plain)
	d1, d2, d4 := Estimate(one)-base, Estimate(two)-base, Estimate(four)-base
	// Each candidate adds C's cost on every seed (and its result's numbers).
	alone := plain
	alone.Strategies = plain.Strategies[2:3]
	each := d2 - d1
	if d := d4 - d1 - 3*each; d < -each/100 || d > each/100 || each < Estimate(&alone)-EstimateSize(&alone) {
		t.Errorf("the search adds %d events for 1 candidate, %d for 2, %d for 4; C alone on its seeds is %d", d1, d2, d4, Estimate(&alone))
	}
	calls := 0
	_, err := Run(context.Background(), four, Options{MaxEvents: base + 2*d1, Progress: func(int, int) { calls++ }})
	if !IsCost(err) || calls != 0 {
		t.Errorf("over the limit: err %v after %d simulations; want a cost error before any", err, calls)
	}
	// Within the limit it runs, and Progress counts the search's simulations.
	res, err := Run(context.Background(), four, Options{MaxEvents: Estimate(four), NoSeries: true, Progress: func(done, total int) { calls = total }})
	if err != nil {
		t.Fatal(err)
	}
	if want := 4*4 + res.Search.Simulations; calls != want {
		t.Errorf("progress total %d, want %d", calls, want)
	}
	if _, _, err := Simulations(four); err == nil {
		t.Error("Simulations splits a search into parts")
	}
}

// TestSearchE03B searches from strategy C of the built-in E03-B (the
// Distributed Reliability Lab's E03-B) for settings that keep the success
// of the operations started during the incident at C's level (a mean no
// lower than C's lowest over the ten seeds) with a lower 100 ms peak.
//
// What it finds (asserted below; the ranges were not tuned toward it):
// such settings exist in this range. C's affected success is 99.11% on
// average, 96.69% on its worst seed, with a 100 ms peak of 89.4 calls; of
// 216 candidates (568 simulations), the recommendation is 3 attempts,
// backoff from 500 ms capped at 2 s, decorrelated jitter and no budget:
// 99.72% affected success, a peak of 32.1 (28..38 over the seeds).
func TestSearchE03B(t *testing.T) {
	if testing.Short() {
		t.Skip("216 candidates over ten seeds")
	}
	sc := searchE03B(t, 10, `{
		"strategy": "C",
		"knobs": [
			{"path": "max_attempts", "values": [2, 3, 4, 6]},
			{"path": "backoff.base", "values": ["100ms", "200ms", "500ms"]},
			{"path": "backoff.max", "values": ["2s", "5s"]},
			{"path": "jitter.kind", "values": ["full", "equal", "decorrelated"]},
			{"path": "budget", "values": [null, {"kind": "ratio", "ratio": 0.1, "window": "1s"}, {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}]}
		],
		"objectives": [{"metric": "peak_per_100ms", "goal": "min"}, {"metric": "affected_success_rate", "goal": "max"}]
	}`)
	plain := *sc
	plain.Search = nil
	c := runSearchless(t, &plain).Strategies[2]
	floor := c.Spread["affected_success_rate"].Min
	sc.Search.Constraints = []Constraint{{"affected_success_rate", OpAtLeast, floor}}
	res := runSearch(t, sc, Options{})
	s := res.Search
	// The cost check's bound holds for what successive halving ran, and
	// is as generous as the engine's estimate of a plain run, not the
	// tenfold more of every candidate on every seed.
	ran, est := res.Events+s.Events, Estimate(sc)
	generous := float64(Estimate(&plain)) / float64(runSearchless(t, &plain).Events)
	t.Logf("ran %d events, estimated %d (%.1f×; a plain run's estimate is %.1f× its events)", ran, est, float64(est)/float64(ran), generous)
	if ran > est || float64(est) > 2*generous*float64(ran) {
		t.Errorf("the search ran %d events, estimated at %d; a plain run's estimate is %.1f× its events", ran, est, generous)
	}
	t.Logf("C: affected_success_rate %v [%v..], peak_per_100ms %v; %d simulations", c.Metrics.AffectedSuccessRate, floor, c.Metrics.PeakPer100ms, s.Simulations)
	if s.Recommendation == nil {
		t.Fatalf("no settings keep affected success at C's level: %s", s.Note)
	}
	rec := s.Recommendation
	t.Logf("recommended: %s", rec.Reason)
	if rec.Metrics.AffectedSuccessRate < floor || rec.Metrics.PeakPer100ms >= c.Metrics.PeakPer100ms {
		t.Errorf("recommended affected_success_rate %v (C's lowest %v), peak_per_100ms %v (C's %v)",
			rec.Metrics.AffectedSuccessRate, floor, rec.Metrics.PeakPer100ms, c.Metrics.PeakPer100ms)
	}
}

// BenchmarkSearchE03B runs a search of 72 candidates from strategy C of
// E03-B over its ten seeds, and reports evaluations (a candidate on a
// seed) per second, at the default parallelism.
func BenchmarkSearchE03B(b *testing.B) {
	sc := searchE03B(b, 10, `{
		"strategy": "C",
		"knobs": [
			{"path": "max_attempts", "values": [2, 3, 4, 6]},
			{"path": "backoff.base", "values": ["100ms", "200ms", "500ms"]},
			{"path": "jitter.kind", "values": ["full", "equal", "decorrelated"]},
			{"path": "budget", "values": [null, {"kind": "ratio", "ratio": 0.1, "window": "1s"}]}
		],
		"objectives": [{"metric": "affected_success_rate", "goal": "max"}, {"metric": "peak_per_100ms", "goal": "min"}]
	}`)
	sc.Strategies = sc.Strategies[2:3] // the search's cost, not the scenario's
	if err := sc.Validate(); err != nil {
		b.Fatal(err)
	}
	evals := 0
	for b.Loop() {
		res, err := Run(context.Background(), sc, Options{NoSeries: true})
		if err != nil {
			b.Fatal(err)
		}
		evals += res.Search.Simulations
	}
	b.ReportMetric(float64(evals)/b.Elapsed().Seconds(), "evaluations/s")
	b.ReportMetric(float64(evals)/float64(b.N), "evaluations/op")
}

// TestSearchRateConstraintAsPercent: a constraint on a rate written as a
// percentage (99.9 for 99.9%) is refused with the fraction to write.
func TestSearchRateConstraintAsPercent(t *testing.T) {
	sc := searchE03B(t, 2, `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 3]}],
		"objectives": [{"metric": "retries", "goal": "min"}],
		"constraints": [{"metric": "affected_success_rate", "op": ">=", "value": 99.9}]}`)
	err := sc.Validate()
	if err == nil || !strings.Contains(err.Error(), "search.constraints[0].value: 99.9 is out of range: affected_success_rate is a rate from 0 to 1 (99.9% is 0.999)") {
		t.Errorf("got %v", err)
	}
}

// TestSearchNothingSeparates: when every candidate scores the same on
// every objective, the search says so and recommends none.
func TestSearchNothingSeparates(t *testing.T) {
	// The backoff of a strategy whose single attempt is never retried
	// changes nothing.
	sc := searchE03B(t, 2, `{"strategy": "C", "knobs": [{"path": "backoff.base", "values": ["100ms", "200ms", "1s"]}],
		"objectives": [{"metric": "affected_success_rate", "goal": "max"}]}`)
	for i := range sc.Strategies {
		if sc.Strategies[i].Name == "C" {
			sc.Strategies[i].MaxAttempts = 1
		}
	}
	s := runSearch(t, sc, Options{}).Search
	if s.Recommendation != nil || !strings.HasPrefix(s.Note, "No objective separates the 3 frontier points: all have affected_success_rate ") {
		t.Errorf("recommendation %v, note %q", s.Recommendation, s.Note)
	}
}

// TestSearchBlamesTheKnobAtFault: an invalid first value of one knob is
// reported once, on that knob's value, not again under every other knob
// checked with it.
func TestSearchBlamesTheKnobAtFault(t *testing.T) {
	sc := searchE03B(t, 2, `{"strategy": "C", "knobs": [
		{"path": "max_attempts", "values": [2, 3]},
		{"path": "budget", "values": [{"kind": "token_bucket", "max_tokens": -5, "token_ratio": 0.1}, null]},
		{"path": "jitter.kind", "values": ["full", "equal"]}],
		"objectives": [{"metric": "retries", "goal": "min"}]}`)
	es := AsErrors(sc.Validate())
	if len(es) != 1 || es[0].Path != "search.knobs[1].values[0]" || !strings.Contains(es[0].Message, "budget.max_tokens") {
		t.Errorf("errors %v; want one, at search.knobs[1].values[0]", es)
	}
}

// TestSearchKnobPaths: a knob's path is checked against the fields of a
// strategy before any value is, and a wrong one is reported at the
// knob's path with what to write instead.
func TestSearchKnobPaths(t *testing.T) {
	objs := `"objectives": [{"metric": "peak_per_100ms", "goal": "min"}]`
	knobs := func(ks string) string { return `{"strategy": "C", "knobs": [` + ks + `], ` + objs + `}` }
	for _, tc := range []struct {
		desc, search, path string
		msgs               []string
	}{
		{"a near miss", knobs(`{"path": "max_atempts", "values": [2]}`), "search.knobs[0].path",
			[]string{`"max_atempts" is not a setting of a strategy`, `did you mean "max_attempts"?`, "max_attempts, attempt_timeout, deadline"}},
		{"a near miss in an object", knobs(`{"path": "backoff.bse", "values": ["1s"]}`), "search.knobs[0].path",
			[]string{`backoff has no field "bse"`, `did you mean "backoff.base"?`, "backoff.kind, backoff.base, backoff.multiplier, backoff.max, backoff.throttle_base"}},
		{"a field of an object at the top", knobs(`{"path": "ratio", "values": [0.1]}`), "search.knobs[0].path",
			[]string{`did you mean "budget.ratio" or "breaker.ratio"?`}},
		{"past a number", knobs(`{"path": "max_attempts.x", "values": [2]}`), "search.knobs[0].path",
			[]string{`goes on past max_attempts, which is a number, not an object; write "max_attempts"`}},
		{"past a list", knobs(`{"path": "layers.max_attempts", "values": [2]}`), "search.knobs[0].path",
			[]string{`goes on past layers, which is a list: give an index, such as "layers[0].max_attempts"`}},
		{"a preset", knobs(`{"path": "preset", "values": ["polly-v8"]}`), "search.knobs[0].path",
			[]string{"a knob changes a setting of the strategy", "to compare presets, add a strategy for each"}},
		{"based_on", knobs(`{"path": "based_on", "values": ["polly-v8"]}`), "search.knobs[0].path",
			[]string{"a knob changes a setting of the strategy", "to compare presets, add a strategy for each"}},
		{"a layer's preset", knobs(`{"path": "layers[0].preset", "values": ["polly-v8"]}`), "search.knobs[0].path",
			[]string{"to compare presets, add a strategy for each"}},
		{"the scenario's path", knobs(`{"path": "strategies[2].max_attempts", "values": [2]}`), "search.knobs[0].path",
			[]string{`relative to the search's strategy "C": write "max_attempts"`}},
		{"the strategy's name", knobs(`{"path": "C.backoff.base", "values": ["1s"]}`), "search.knobs[0].path",
			[]string{`starts with the strategy's name; a knob's path is relative to the search's strategy "C": write "backoff.base"`}},
		{"part of a missing object", knobs(`{"path": "budget.ratio", "values": [0.1]}`), "search.knobs[0].path",
			[]string{`sets part of budget, which strategy "C" does not have`, `a knob "budget" with object values`}},
		{"an object under a field's knob", knobs(`{"path": "backoff", "values": [{"kind": "constant", "base": "1s"}, 3]}, {"path": "backoff.base", "values": ["1s"]}`),
			"search.knobs[0].values[1]", []string{`3 is not an object, and search.knobs[1] ("backoff.base") sets a field in it`}},
		{"a field's knob before its object's", knobs(`{"path": "backoff.base", "values": ["1s"]}, {"path": "backoff", "values": [3]}`),
			"search.knobs[1].values[0]", []string{`3 is not an object, and search.knobs[0] ("backoff.base") sets a field in it`}},
		{"a duplicate value", knobs(`{"path": "max_attempts", "values": [2, 3, 2]}`), "search.knobs[0].values[2]",
			[]string{"2 is also values[0]; a knob gives each value once"}},
		{"a duplicate object", knobs(`{"path": "backoff", "values": [{"kind": "constant", "base": "1s"}, {"base": "1s", "kind": "constant"}]}`), "search.knobs[0].values[1]",
			[]string{"is also values[0]"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			err := searchE03B(t, 2, tc.search).Validate()
			es := AsErrors(err)
			if len(es) == 0 {
				t.Fatalf("valid; want %s: %s", tc.path, tc.msgs)
			}
			for _, m := range tc.msgs {
				if es[0].Path != tc.path || !strings.Contains(es[0].Value+" "+es[0].Message, m) {
					t.Errorf("got %v\nwant %s: ...%s...", err, tc.path, m)
				}
			}
		})
	}
	// A missing object the knobs fill between them, or one whose field
	// alone is valid, is created; an object's knob with a field's knob
	// over it is applied first, whatever their order.
	for _, s := range []string{
		`{"strategy": "A", "knobs": [{"path": "jitter.kind", "values": ["full", "equal"]}, {"path": "backoff", "values": [{"kind": "constant", "base": "1s"}]}], ` + objs + `}`,
		`{"strategy": "A", "knobs": [{"path": "backoff.kind", "values": ["constant"]}, {"path": "backoff.base", "values": ["1s", "2s"]}], ` + objs + `}`,
		`{"strategy": "C", "knobs": [{"path": "backoff.base", "values": ["300ms"]}, {"path": "backoff", "values": [{"kind": "constant", "base": "1s"}]}], ` + objs + `}`,
		// A strategy named as a field: the path is the field's.
		`{"strategy": "backoff", "knobs": [{"path": "backoff.base", "values": ["300ms", "1s"]}], ` + objs + `}`,
	} {
		sc := searchE03B(t, 2, s)
		if strings.Contains(s, `"strategy": "backoff"`) {
			sc.Strategies[2].Name = "backoff"
		}
		if err := sc.Validate(); err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if st, err := sc.SearchCandidate(combination(sc.Search, 0)); err != nil || st.Backoff.Base == 0 ||
			strings.Contains(s, `"300ms"`) && st.Backoff.Base.String() != "300ms" {
			t.Errorf("%s: the first candidate has backoff %+v (%v)", s, st.Backoff, err)
		}
	}
}

// TestSearchKnobKeepsOtherFields: a knob on a field keeps the object's
// other fields (a preset's jitter fraction beside a knob's jitter kind);
// when one of them is what is wrong, the error names the preset and says
// to vary the whole object.
func TestSearchKnobKeepsOtherFields(t *testing.T) {
	sc := searchE03B(t, 2, `{"strategy": "C", "knobs": [{"path": "jitter.kind", "values": ["full", "equal"]}],
		"objectives": [{"metric": "retries", "goal": "min"}]}`)
	sc.Strategies[2].BasedOn = "azure-sdk"
	sc.Strategies[2].Jitter = Jitter{Kind: JitterProportional, Fraction: 0.2}
	es := AsErrors(sc.Validate())
	if len(es) == 0 || es[0].Path != "search.knobs[0].values[0]" || !strings.Contains(es[0].Message, `based on preset "azure-sdk"`) ||
		!strings.Contains(es[0].Message, `the knob "jitter.kind" keeps the strategy's other jitter fields: vary the whole object instead, with a knob "jitter" with object values`) {
		t.Errorf("errors %v", es)
	}
}
