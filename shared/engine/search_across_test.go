package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/internal/golden"
)

// e03bVariants are the variants of E03-B's dependency the tests search
// across. They were chosen before any search ran, for what each asks,
// and are not tuned to any outcome:
//
//   - "published": the scenario as written, as the Distributed
//     Reliability Lab's E03-B publishes it (a freeze from 8.5 s to 10 s
//     whose backlog is answered 503, then half capacity to 15 s);
//   - "outage 3s": the dependency down twice as long as the published
//     freeze (8.5 s to 11.5 s) and refusing every call at once (503)
//     rather than holding it: the other way a dependency goes away.
//     3 s is shorter than the strategies' 5 s deadline, so that retries
//     can outlast it and the policy matters;
//   - "half capacity": the published second phase alone (5 of the 10
//     workers from 10 s to 15 s), without the freeze: whether the
//     halving hurts by itself.
//
// Every variant keeps the report's affected window (8.5 s to 15 s), so
// that each metric counts the same operations in each.
const e03bVariants = `[
	{"name": "published"},
	{"name": "outage 3s", "path": "dependency.phases", "value": [{"kind": "outage", "from": "8.5s", "to": "11.5s", "status": 503}]},
	{"name": "half capacity", "path": "dependency.phases", "value": [{"kind": "capacity", "from": "10s", "to": "15s", "workers": 5, "label": "capacity halved"}]}
]`

// smallAcross is smallSearch across e03bVariants: 18 candidates on 3
// variants.
var smallAcross = strings.Replace(smallSearch, `"objectives"`, `"across": `+e03bVariants+`, "objectives"`, 1)

// TestSearchAcrossE03B searches from strategy C of the built-in E03-B
// across e03bVariants for settings at least as good as C in C's own
// worst case (its lowest affected success and its highest 100 ms peak
// over the variants: C is one of the candidates, so such settings
// exist) with the lowest worst-case peak, and checks the result's
// promises: the recommendation meets every constraint in every variant,
// the frontier is non-dominated on the worst cases, each worst case is
// the worst of the point's variants and its binding variant the one it
// comes from, and the sentence names that variant.
func TestSearchAcrossE03B(t *testing.T) {
	if testing.Short() {
		t.Skip("192 candidates over ten seeds and three variants")
	}
	sc := longE03B(t, 1)
	sc.Runs = 10
	sc.Search = DefaultSearch("C")
	if err := json.Unmarshal([]byte(e03bVariants), &sc.Search.Across); err != nil {
		t.Fatal(err)
	}
	sc.Search.Objectives = []Objective{{"peak_per_100ms", GoalMin}, {"affected_success_rate", GoalMax}}
	// C alone in each variant gives the constraints.
	asr, peak := 1.0, 0.0
	for i := range sc.Search.Across {
		sub := variantOf(t, sc, i)
		sub.Strategies = sub.Strategies[2:3]
		c := runSearchless(t, sub).Strategies[0].Metrics
		t.Logf("C in %q: affected_success_rate %v, peak_per_100ms %v", sc.Search.Across[i].Name, c.AffectedSuccessRate, c.PeakPer100ms)
		asr, peak = min(asr, c.AffectedSuccessRate), max(peak, c.PeakPer100ms)
	}
	sc.Search.Constraints = []Constraint{{"affected_success_rate", OpAtLeast, asr}, {"peak_per_100ms", OpAtMost, peak}}
	res := runSearch(t, sc, Options{})
	s := res.Search
	if !slices.Equal(s.Variants, []string{"published", "outage 3s", "half capacity"}) || s.Simulations != 3*504 {
		t.Errorf("variants %q, %d simulations; want the three, 3 × 504", s.Variants, s.Simulations)
	}
	if est := Estimate(sc); res.Events+s.Events > est {
		t.Errorf("ran %d events, estimated %d", res.Events+s.Events, est)
	}
	if s.Recommendation == nil {
		t.Fatalf("no recommendation, though C is a candidate: %s", s.Note)
	}
	rec := s.Recommendation
	t.Logf("recommended: %s", rec.Reason)
	for _, v := range rec.Variants {
		t.Logf("  in %q: %v", v.Name, v.Metrics)
		for _, c := range sc.Search.Constraints {
			if x := v.Metrics[c.Metric]; !c.Meets(x) {
				t.Errorf("the recommendation has %s %v in %q, against %s", c.Metric, x, v.Name, c.String())
			}
		}
	}
	if !strings.Contains(rec.Reason, fmt.Sprintf("in %q, the variant that binds", rec.Binding["peak_per_100ms"])) ||
		!strings.Contains(rec.Reason, "in every variant") || !strings.Contains(rec.Reason, "over 10 seeds and 3 variants") {
		t.Errorf("reason %q does not say which variant binds", rec.Reason)
	}
	for i, a := range s.Frontier {
		if len(a.Variants) != 3 {
			t.Fatalf("frontier point %d has %d variants", i, len(a.Variants))
		}
		for _, o := range sc.Search.Objectives {
			xs := make([]float64, len(a.Variants))
			for v := range a.Variants {
				xs[v] = a.Variants[v].Metrics[o.Metric]
			}
			w, at := worstIn(xs, o.Goal == GoalMax)
			if got, _ := a.Metrics.Metric(o.Metric); got != w || a.Binding[o.Metric] != a.Variants[at].Name {
				t.Errorf("frontier point %d: %s %v binding %q; its variants say %v in %q", i, o.Metric, got, a.Binding[o.Metric], w, a.Variants[at].Name)
			}
		}
		for j, b := range s.Frontier {
			if dominatesOn(sc.Search.Objectives, &b.Metrics, &a.Metrics) {
				t.Errorf("frontier point %d %v is dominated on the worst cases by point %d %v", i, a.Settings, j, b.Settings)
			}
		}
	}
	// What a search of the published scenario alone recommends, and how
	// it fares in the other variants (for the log: the reason to search
	// across them).
	plain := *sc
	search := *sc.Search
	search.Across = nil
	plain.Search = &search
	if pr := runSearch(t, &plain, Options{}).Search.Recommendation; pr != nil {
		t.Logf("published alone recommends: %s", pr.Reason)
	}
}

// TestSearchAcrossCommonRandomNumbers: a candidate's metrics in a variant
// are those of its strategy run alone on that variant's scenario, on the
// same seeds; the variant without a path is the scenario as written.
func TestSearchAcrossCommonRandomNumbers(t *testing.T) {
	sc := searchE03B(t, 3, `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [4]}],
		"objectives": [{"metric": "peak_per_100ms", "goal": "min"}, {"metric": "affected_success_rate", "goal": "max"}],
		"across": `+e03bVariants+`}`)
	res := runSearch(t, sc, Options{})
	if len(res.Search.Frontier) != 1 {
		t.Fatalf("frontier of %d points, want 1", len(res.Search.Frontier))
	}
	got := res.Search.Frontier[0]
	for i, vr := range sc.Search.Across {
		sub := variantOf(t, sc, i)
		sub.Strategies = sub.Strategies[2:3]
		want := runSearchless(t, sub).Strategies[0]
		for _, m := range []string{"peak_per_100ms", "affected_success_rate"} {
			x, _ := want.Metrics.Metric(m)
			if g := got.Variants[i]; g.Name != vr.Name || g.Metrics[m] != x || g.Spread[m] != want.Spread[m] {
				t.Errorf("in %q the candidate has %s %v %v, strategy C alone %v %v", vr.Name, m, g.Metrics[m], g.Spread[m], x, want.Spread[m])
			}
		}
	}
	if c := res.Strategies[2].Metrics; got.Variants[0].Metrics["peak_per_100ms"] != c.PeakPer100ms {
		t.Errorf("the variant without a path measures a peak of %v; strategy C in the scenario %v", got.Variants[0].Metrics["peak_per_100ms"], c.PeakPer100ms)
	}
}

// TestSearchAcrossNotApplicable: a metric that does not apply in a
// variant (recovery, in a variant without a fault) is not that variant's
// worst case: the worst case and its binding variant come from the
// variants where it applies.
func TestSearchAcrossNotApplicable(t *testing.T) {
	sc := searchE03B(t, 2, `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 4]}],
		"objectives": [{"metric": "recovered", "goal": "max"}],
		"across": [{"name": "as written"}, {"name": "healthy", "path": "dependency.phases", "value": []}]}`)
	res := runSearch(t, sc, Options{})
	for _, p := range res.Search.Frontier {
		if p.Binding["recovered"] != "as written" || p.Metrics.Recovered != Optional(p.Variants[0].Metrics["recovered"]) {
			t.Errorf("%v: recovered %v, binding %q; variants %+v", p.Settings, p.Metrics.Recovered, p.Binding["recovered"], p.Variants)
		}
		if _, ok := p.Variants[1].Metrics["recovered"]; ok {
			t.Errorf("%v: recovered is given in the healthy variant, where it does not apply", p.Settings)
		}
	}
}

// TestSearchAcrossGolden compares the search of testdata/across with
// testdata/golden/search-across.json, byte for byte: the Makefile's wasm
// run of the engine's tests checks the same file.
func TestSearchAcrossGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "across", "search-across.json"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{NoSeries: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res.Search, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(numberLists.ReplaceAllFunc(got, compactList), '\n')
	golden.Check(t, filepath.Join("testdata", "golden", "search-across.json"), got)
}

// TestSearchAcrossCost: the estimate counts every candidate on every
// variant, at the variant's own cost, and a search over the limit is
// refused before anything runs.
func TestSearchAcrossCost(t *testing.T) {
	with := func(across string) *Scenario {
		return searchE03B(t, 4, `{"strategy": "C", "knobs": [{"path": "backoff.base", "values": ["100ms", "200ms"]}],
			"objectives": [{"metric": "retries", "goal": "min"}], "across": `+across+`}`)
	}
	one := with(`[{"name": "as written"}]`)
	two := with(`[{"name": "as written"}, {"name": "again", "path": "dependency.workers", "value": 10}]`)
	busier := with(`[{"name": "as written"}, {"name": "twice the rate", "path": "workload.rate", "value": 190}]`)
	plain := *one
	plain.Search = nil
	base := Estimate(&plain)
	d1, d2, db := Estimate(one)-base, Estimate(two)-base, Estimate(busier)-base
	if d := d2 - 2*d1; d < -d1/100 || d > d1/100 {
		t.Errorf("one variant adds %d events, two of the same cost %d", d1, d2)
	}
	if db < d2+d1/2 {
		t.Errorf("a variant at twice the rate adds %d events; two variants as written %d", db, d2)
	}
	calls := 0
	_, err := Run(context.Background(), two, Options{MaxEvents: base + d1 + d1/2, Progress: func(int, int) { calls++ }})
	if !IsCost(err) || calls != 0 {
		t.Errorf("over the limit: err %v after %d simulations; want a cost error before any", err, calls)
	}
	res, err := Run(context.Background(), two, Options{MaxEvents: Estimate(two), NoSeries: true, Progress: func(done, total int) { calls = total }})
	if err != nil {
		t.Fatal(err)
	}
	if want := 4*4 + res.Search.Simulations; calls != want || res.Search.Simulations != 2*roundsSimulations(res.Search.Rounds) {
		t.Errorf("progress total %d, want %d; %d simulations for rounds %v", calls, want, res.Search.Simulations, res.Search.Rounds)
	}
}

// TestSearchAcrossInvalid: each problem with search.across is reported
// at its path, with the value and what is allowed.
func TestSearchAcrossInvalid(t *testing.T) {
	search := func(across string) string {
		return `{"strategy": "C", "knobs": [{"path": "max_attempts", "values": [2, 3]}],
			"objectives": [{"metric": "peak_per_100ms", "goal": "min"}], "across": ` + across + `}`
	}
	phases := `[{"kind": "outage", "from": "8.5s", "to": "11.5s"}]`
	nine := make([]string, 9)
	for i := range nine {
		nine[i] = fmt.Sprintf(`{"name": "v%d", "path": "dependency.workers", "value": %d}`, i, i+2)
	}
	for _, tc := range []struct {
		desc, across, path string
		msgs               []string
	}{
		{"an empty list", `[]`, "search.across", []string{"is empty; give 1..8 variants", "or leave across out"}},
		{"too many", "[" + strings.Join(nine, ", ") + "]", "search.across", []string{"lists 9 variants; at most 8 are allowed"}},
		{"no name", `[{"path": "dependency.phases", "value": ` + phases + `}]`, "search.across[0].name", []string{"is empty; every variant needs a short name"}},
		{"a name twice", `[{"name": "outage", "path": "dependency.phases", "value": ` + phases + `}, {"name": "outage"}]`, "search.across[1].name",
			[]string{`"outage" is also the name of search.across[0]; names must be unique`}},
		{"a value without a path", `[{"name": "outage", "value": ` + phases + `}]`, "search.across[0].value", []string{"is given without a path"}},
		{"an unknown path", `[{"name": "outage", "path": "dependncy.phases", "value": ` + phases + `}]`, "search.across[0].path",
			[]string{`"dependncy.phases" is not a part of the scenario a variant may change; did you mean "dependency"?`, "starts with workload, dependency, dependencies, report"}},
		{"an unknown field", `[{"name": "outage", "path": "dependency.phase", "value": ` + phases + `}]`, "search.across[0].path",
			[]string{`"dependency.phase" is not a path of the scenario: at dependency.phase is not a known field; did you mean "phases"? allowed: name, workers`}},
		{"a bad path", `[{"name": "outage", "path": "dependency.phases[x]", "value": 1}]`, "search.across[0].path", []string{`"dependency.phases[x]" is not a path such as`, "an index must be a number in brackets"}},
		{"a missing index", `[{"name": "second", "path": "dependencies[1].workers", "value": 5}]`, "search.across[0].path", []string{"has index [1], which does not exist"}},
		{"a strategy", `[{"name": "more", "path": "strategies[2].max_attempts", "value": 5}]`, "search.across[0].path", []string{"changes the strategies", "the search's knobs vary the strategy"}},
		{"the seeds", `[{"name": "more", "path": "runs", "value": 5}]`, "search.across[0].path", []string{"changes the seeds"}},
		{"the search", `[{"name": "more", "path": "search.budget", "value": 5}]`, "search.across[0].path", []string{"a variant cannot change search"}},
		{"a bad value", `[{"name": "odd", "path": "dependency.phases", "value": [{"kind": "gaussian", "from": "8.5s", "to": "9s"}]}]`, "search.across[0].value",
			[]string{`"gaussian" at dependency.phases[0].kind is not one of "freeze", "outage", "capacity", "errors", "latency"`}},
		{"a value of the wrong type", `[{"name": "odd", "path": "dependency.workers", "value": "ten"}]`, "search.across[0].value", []string{`"ten" at dependency.workers is not a number`}},
		{"an invalid scenario", `[{"name": "odd", "path": "dependency.workers", "value": 0}]`, "search.across[0].value", []string{"at dependency.workers"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			err := searchE03B(t, 2, search(tc.across)).Validate()
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
	// Variants × the scenario's size are bounded before any is read.
	long := searchE03B(t, 2, search(`[{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}]`))
	for i := range 9 {
		st := long.Strategies[2]
		st.Name, st.Description = fmt.Sprintf("C%d", i), strings.Repeat("x", 9000)
		long.Strategies = append(long.Strategies, st)
	}
	if es := AsErrors(long.Validate()); len(es) == 0 || es[len(es)-1].Path != "search.across" || !strings.Contains(es[len(es)-1].Message, "variants × its size may be at most 256 KiB") {
		t.Errorf("a long scenario: %v", es)
	}
	// Decode names an unknown field of a variant by its path.
	_, err := Decode([]byte(`{"version": 1, "search": {"strategy": "C", "across": [{"name": "a", "values": [1]}]}}`))
	if es := AsErrors(err); len(es) == 0 || es[0].Path != "search.across[0].values" {
		t.Errorf("unknown field: %v", err)
	}
	// Eight variants, and one whose value is null (no phases: a healthy
	// dependency), are fine.
	if err := searchE03B(t, 2, search("["+strings.Join(nine[:8], ", ")+"]")).Validate(); err != nil {
		t.Errorf("eight variants: %v", err)
	}
	if err := searchE03B(t, 2, search(`[{"name": "healthy", "path": "dependency.phases", "value": null}]`)).Validate(); err != nil {
		t.Errorf("a null value: %v", err)
	}
}
