package probe

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/internal/golden"

	"github.com/retrylab/retrylab/shared/engine"
)

// stormJSON is a small synthetic metastable scenario: 400 operations/s
// against a dependency of 500/s whose failures climb with offered load
// from 500/s (none) to 800/s (all), and a client that retries 6 times
// 50 ms apart. A 2 s outage from 5 s makes every operation retry at
// once: the offered load climbs past 800/s, every call fails, the
// retries keep it there after the outage ends.
const stormJSON = `{
  "version": 1, "name": "synthetic storm", "seed": 1, "runs": 2,
  "workload": {"clients": 100, "arrival": "poisson", "rate": 400, "duration": "30s"},
  "dependency": {
    "workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 200,
    "load_errors": {"window": "1s", "status": 503, "points": [{"load": 500, "rate": 0}, {"load": 800, "rate": 1}]},
    "phases": [{"kind": "outage", "from": "5s", "to": "7s", "status": 503}]
  },
  "strategies": [{"name": "eager", "max_attempts": 6, "attempt_timeout": "1s",
    "backoff": {"kind": "constant", "base": "50ms"}}]
}`

func stormScenario(tb testing.TB) *engine.Scenario {
	tb.Helper()
	sc, err := engine.Parse([]byte(stormJSON))
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

// builtin returns the catalogue's scenario of slug.
func builtin(tb testing.TB, slug string) *engine.Scenario {
	tb.Helper()
	data, err := os.ReadFile("../../scenarios/catalog/" + slug + ".json")
	if err != nil {
		tb.Fatal(err)
	}
	var b struct{ Scenario json.RawMessage }
	if err := json.Unmarshal(data, &b); err != nil {
		tb.Fatal(err)
	}
	sc, err := engine.Parse(b.Scenario)
	if err != nil {
		tb.Fatal(err)
	}
	return sc
}

func mustProbe(tb testing.TB, sc *engine.Scenario, opt Options) *Result {
	tb.Helper()
	res, err := Run(context.Background(), sc, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// endsWith runs remedy kind at value on sc and reports whether the storm
// ended on every seed, judged as res judged it: a prober of its own runs
// the counterfactual and the remedy, on the scenario the remedy makes.
func endsWith(t *testing.T, sc *engine.Scenario, si int, res *Result, kind RemedyKind, value float64) bool {
	t.Helper()
	sub := *sc
	sub.Strategies = []engine.Strategy{sc.Strategies[si]}
	p := &prober{sc: &sub, at: int64(res.At), from: res.WindowFrom, to: res.WindowTo, res: &Result{}, perOp: engine.CallsPerOperation(&sub)}
	p.opt.MaxWorkers = 1000
	p.segments()
	healthy, err := p.simulate(context.Background(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.healthy = healthy
	strength := int(value + 0.5)
	switch kind {
	case RemedyLoad:
		strength = int(value*units + 0.5)
	case RemedyBudget:
		strength = units + 1 - int(value*units+0.5)
	}
	ok, _, err := p.ends(context.Background(), &remedy{kind, strength})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// checkBrackets checks res's remedies on strategy si of sc: each found
// bracket is one step wide, its strong end ends the storm and its weak
// end does not (re-run independently of the probe), and the remedies'
// simulations add up.
func checkBrackets(t *testing.T, sc *engine.Scenario, si int, res *Result) {
	t.Helper()
	total := 0
	for _, r := range res.Remedies {
		t.Logf("%s: %s", r.Kind, r.Text)
		total += r.Simulations
		if r.Outcome != Found {
			continue
		}
		step := r.Enough - r.NotEnough
		if r.Kind == RemedyOneLevel {
			step = r.Resolution // a level, not a bracket
		}
		if r.Kind == RemedyBudget {
			step = -step
		}
		if r.NotEnough != 0 && !near(step, r.Resolution) {
			t.Errorf("%s: bracket %g..%g is not one step of %g", r.Kind, r.NotEnough, r.Enough, r.Resolution)
		}
		if !endsWith(t, sc, si, res, r.Kind, r.Enough) {
			t.Errorf("%s %g does not end the storm", r.Kind, r.Enough)
		}
		if r.NotEnough != 0 && endsWith(t, sc, si, res, r.Kind, r.NotEnough) {
			t.Errorf("%s %g ends the storm, yet is outside the bracket", r.Kind, r.NotEnough)
		}
	}
	if total+2*res.Seeds != res.Simulations {
		t.Errorf("remedies ran %d simulations, the result says %d in all with the counterfactual and the baseline over %d seeds", total, res.Simulations, res.Seeds)
	}
}

func TestProbeBracketsSyntheticStorm(t *testing.T) {
	sc := stormScenario(t)
	res := mustProbe(t, sc, Options{MaxWorkers: 40})
	if !res.Metastable || res.Finding != FindingMetastable || res.Baseline.Max >= res.Healthy.Success.Min-SuccessTolerance {
		t.Fatalf("the synthetic storm is not in a storm: %s, %v succeed, healthy %v", res.Finding, res.Baseline, res.Healthy)
	}
	if res.At != engine.Duration(7e9) || res.WindowFrom != engine.Duration(17e9) || res.WindowTo != engine.Duration(30e9) || res.Prevents {
		t.Errorf("remedy at %s, window %s..%s, prevents %v; want the outage's end 7s, window 17s..30s, ending the storm", res.At, res.WindowFrom, res.WindowTo, res.Prevents)
	}
	for _, r := range res.Remedies {
		if r.Outcome != Found {
			t.Errorf("%s: outcome %s, want a bracket", r.Kind, r.Outcome)
		}
	}
	checkBrackets(t, sc, 0, res)
}

// TestProbeProgress: Progress counts every simulation the probe makes, of
// a total that never grows and starts at what checkCost bounds, and ends
// at done == total == Simulations; the result is the same without it.
// Also a strategy not in a storm: its total falls to the two runs made.
func TestProbeProgress(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   *engine.Scenario
		opt  Options
	}{
		{"storm", stormScenario(t), Options{MaxWorkers: 40}},
		{"no storm", builtin(t, "e03b-synchronized-recovery"), Options{Strategy: "C"}},
	} {
		var calls [][2]int
		opt := tc.opt
		opt.Progress = func(done, total int) { calls = append(calls, [2]int{done, total}) }
		res := mustProbe(t, tc.sc, opt)
		if len(calls) < 2 || calls[0][0] != 0 {
			t.Fatalf("%s: progress %v, want it to start at 0", tc.name, calls)
		}
		for i, c := range calls {
			if c[0] > c[1] || i > 0 && (c[0] < calls[i-1][0] || c[1] > calls[i-1][1]) {
				t.Errorf("%s: progress %v at %d: done must not fall or pass total, total must not grow", tc.name, calls, i)
				break
			}
		}
		if last := calls[len(calls)-1]; last[0] != res.Simulations || last[1] != res.Simulations {
			t.Errorf("%s: progress ends at %v, want done == total == %d simulations", tc.name, last, res.Simulations)
		}
		plain := mustProbe(t, tc.sc, tc.opt)
		a, _ := json.Marshal(res)
		b, _ := json.Marshal(plain)
		if string(a) != string(b) {
			t.Errorf("%s: the probe differs with Progress", tc.name)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestGoldenProbe pins the synthetic storm's probe, byte for byte: the
// same natively and under GOOS=js (make test-wasm).
func TestGoldenProbe(t *testing.T) {
	res := mustProbe(t, stormScenario(t), Options{MaxWorkers: 40})
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "probe-storm.json"), append(got, '\n'))
}

func TestProbeDeterministic(t *testing.T) {
	sc := stormScenario(t)
	a := mustProbe(t, sc, Options{Parallelism: 1, MaxWorkers: 40})
	b := mustProbe(t, sc, Options{Parallelism: 2, MaxWorkers: 40})
	c := mustProbe(t, sc, Options{Parallelism: 2, MaxWorkers: 40})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	jc, _ := json.Marshal(c)
	if string(ja) != string(jb) || string(jb) != string(jc) {
		t.Errorf("probes differ:\n%s\n%s\n%s", ja, jb, jc)
	}
}

func TestProbeNoStormE03B(t *testing.T) {
	sc := builtin(t, "e03b-synchronized-recovery")
	for _, st := range sc.Strategies {
		res := mustProbe(t, sc, Options{Strategy: st.Name})
		if res.Metastable || !strings.HasPrefix(res.NoStorm, "not in a storm: after the trigger") {
			t.Errorf("%s: in a storm, baseline %v, healthy %v; %s", st.Name, res.Baseline, res.Healthy, res.NoStorm)
		}
		for _, r := range res.Remedies {
			if r.Outcome != NoStorm {
				t.Errorf("%s: %s outcome %s", st.Name, r.Kind, r.Outcome)
			}
		}
		if res.Simulations != 2*res.Seeds {
			t.Errorf("%s: %d simulations; a strategy not in a storm needs the counterfactual and the baseline only (%d)", st.Name, res.Simulations, 2*res.Seeds)
		}
	}
}

func TestProbeRefusesCost(t *testing.T) {
	sc := stormScenario(t)
	one := engine.EstimateTuned(&engine.Scenario{Version: sc.Version, Workload: sc.Workload, Dependency: sc.Dependency, Strategies: sc.Strategies, Runs: sc.Runs, Seed: sc.Seed})
	// The baseline alone fits; every simulation bisection can make does not.
	_, err := Run(context.Background(), sc, Options{MaxEvents: 3 * one})
	if !engine.IsCost(err) {
		t.Fatalf("err = %v, want a cost refusal", err)
	}
	// Its advice is a probe's: fewer seeds, or a larger limit for the probe.
	for _, want := range []string{"a probe runs the strategy up to 25 times on each of 2 seeds", "probe fewer seeds (runs)", "raise the probe's event limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant ...%s...", err, want)
		}
	}
	if strings.Contains(err.Error(), "sweep values") || strings.Contains(err.Error(), "search candidates") {
		t.Errorf("%v\nadvises what a probe does not have", err)
	}
	p := &prober{opt: Options{MaxLoad: DefaultMaxLoad, MaxWorkers: 40}}
	runs := 2
	p.sc = &engine.Scenario{Strategies: []engine.Strategy{{Policy: engine.Policy{MaxAttempts: 3}}}}
	for _, k := range RemedyKinds {
		runs += p.runs(k)
	}
	if runs != 2+(1+7)+(1+6)+(1+7)+0 {
		t.Errorf("bound of %d runs per seed", runs)
	}
}

func TestAddWorkers(t *testing.T) {
	out := addWorkers([]engine.Phase{
		{Kind: engine.PhaseOutage, From: 1, To: 2},
		{Kind: engine.PhaseCapacity, From: 3, To: 8, Workers: 5},
		{Kind: engine.PhaseCapacity, From: 10, To: 12, Workers: 20},
	}, 10, 4, 6, 100)
	want := []engine.Phase{
		{Kind: engine.PhaseOutage, From: 1, To: 2},
		{Kind: engine.PhaseCapacity, From: 3, To: 6, Workers: 5},
		{Kind: engine.PhaseCapacity, From: 6, To: 8, Workers: 9},
		{Kind: engine.PhaseCapacity, From: 8, To: 10, Workers: 14, Label: "probe: workers added"},
		{Kind: engine.PhaseCapacity, From: 10, To: 12, Workers: 24},
		{Kind: engine.PhaseCapacity, From: 12, To: 100, Workers: 14, Label: "probe: workers added"},
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("addWorkers:\n got %+v\nwant %+v", out, want)
	}
}

// TestProbeMetadataStorm probes the storage servers of the metadata
// storm without the built-in's own remedy (the pause and the doubled
// capacity from 60 s, left out), at 60 s, when the built-in applies it,
// judged from 30 s after it (the storm's operations retry for tens of
// seconds) and with load reductions up to 99% (the built-in's pause
// removes all of it). Its description: the storm outlives the 5 s
// disruption; removing the load ends it; twice the capacity alone does
// not. One seed, the built-in's.
func TestProbeMetadataStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("about 20 simulations of 2 minutes at 2,000 operations/s")
	}
	sc := builtin(t, "metadata-storm")
	sc.Dependency.Phases = sc.Dependency.Phases[:1] // the disruption only
	at := engine.Duration(60e9)
	res := mustProbe(t, sc, Options{At: &at, Settle: engine.Duration(30e9), MaxLoad: 0.99})
	if !res.Metastable || res.Finding != FindingMetastable || res.Prevents {
		t.Fatalf("not in a storm, or not after the trigger: %s, %v succeed, healthy %v; %s", res.Finding, res.Baseline, res.Healthy, res.NoStorm)
	}
	// The sentence: the bad state outlives the disruption, to the end of
	// the span judged, at unchanged load. In the run's series, about
	// half of the operations still fail in its last quarter.
	if !strings.HasPrefix(res.Summary, "storage servers is metastable: the bad state outlives its trigger") && !strings.Contains(res.Summary, " is metastable: the bad state outlives its trigger") {
		t.Errorf("summary %q", res.Summary)
	}
	checkPersists(t, sc, res)
	checkBrackets(t, sc, 0, res)
	for _, r := range res.Remedies {
		switch r.Kind {
		case RemedyLoad:
			if r.Outcome != Found {
				t.Errorf("load: %s; the description says removing the load ends the storm", r.Text)
			}
		case RemedyCapacity:
			if r.Outcome == Found && r.Enough <= 100 {
				t.Errorf("%d more workers end the storm; the description says twice the capacity (100 more) does not", int(r.Enough))
			}
		}
	}
}

// checkPersists checks a metastable or unstable finding against the
// run's series (its first seed): in the last quarter of the span judged,
// more operations end in failure than its healthy self lets fail, at
// the scenario's own load (the arrivals go on at their rate).
func checkPersists(t *testing.T, sc *engine.Scenario, res *Result) {
	t.Helper()
	out := runOne(t, sc, res.Strategy)
	sr := out.Strategies[0].Series
	q := res.Quarters[3]
	from, to := res.WindowFrom+3*(res.SpanTo-res.WindowFrom)/4, res.SpanTo
	ok, failed := bucketSum(sr, sr.Successes, from, to), bucketSum(sr, sr.Failures, from, to)
	share := float64(failed) / float64(ok+failed)
	if share < 1-res.Healthy.Success.Min+SuccessTolerance {
		t.Errorf("%s: %d of %d operations ending from %s to %s fail (%.1f%%), no more than its healthy self's %.1f%%: the series does not show the bad state persisting (quarter: %v)",
			res.Strategy, failed, ok+failed, from, to, share*100, (1-res.Healthy.Success.Min)*100, q.Success)
	}
}

// strategyOf returns strategy name of sc.
func strategyOf(t *testing.T, sc *engine.Scenario, name string) *engine.Strategy {
	t.Helper()
	for i := range sc.Strategies {
		if sc.Strategies[i].Name == name {
			return &sc.Strategies[i]
		}
	}
	t.Fatalf("no strategy %q", name)
	return nil
}

// runOne runs the strategy of sc named name alone, on one seed, for its
// series.
func runOne(t *testing.T, sc *engine.Scenario, name string) *engine.Result {
	t.Helper()
	one := *sc
	one.Runs = 1
	one.Strategies = []engine.Strategy{*strategyOf(t, sc, name)}
	out, err := engine.Run(context.Background(), &one, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// bucketSum adds up the buckets of series xs that end within [from, to).
func bucketSum(sr *engine.Series, xs []int32, from, to engine.Duration) int64 {
	b := engine.Duration(sr.BucketMS * 1e6)
	var n int64
	for i, x := range xs {
		if t := engine.Duration(i) * b; t >= from && t+b <= to {
			n += int64(x)
		}
	}
	return n
}

// TestProbeRunawayCascade probes the textbook policy of the runaway
// cascade, which has no trigger: its description says it has no healthy
// steady state at 500 requests/s, its offered load climbing the failure
// curve from 10% failures at 500/s. So it is unstable without a trigger,
// not metastable: there is no trigger for its bad state to outlive, and
// its remedies keep the operating point out of overload. Some load must
// go, and a load at which the first attempts and their 10% of retries
// stay under 500/s (under 500/1.1, about 455/s: 9% less) is the least
// that can hold. Called metastable, it would send the reader looking for
// a trigger it does not have.
func TestProbeRunawayCascade(t *testing.T) {
	if testing.Short() {
		t.Skip("about 60 simulations of 3 minutes at 500 operations/s")
	}
	sc := builtin(t, "runaway-cascade")
	res := mustProbe(t, sc, Options{Strategy: "textbook"})
	if res.Finding != FindingUnstable || res.Metastable || !res.Prevents {
		t.Fatalf("finding %s, metastable %v, prevents %v: %v succeed, healthy %v; %s", res.Finding, res.Metastable, res.Prevents, res.Baseline, res.Healthy, res.Summary)
	}
	if !strings.Contains(res.Criterion, "the overload has ended when") || !strings.Contains(res.Criterion, "from 0s on; the scenario has no trigger, so from the start they keep its operating point out of overload rather than end a storm") ||
		!strings.HasPrefix(res.Summary, "textbook is unstable without a trigger: the scenario has no trigger for a bad state to outlive") ||
		!strings.Contains(res.Summary, ". Keeping it out of overload needs ") || !strings.Contains(res.Summary, "not the end of a storm") ||
		strings.Contains(res.Summary, "metastable") {
		t.Errorf("criterion %q, summary %q; want remedies from 0s said to keep it out of overload", res.Criterion, res.Summary)
	}
	checkPersists(t, sc, res)
	checkBrackets(t, sc, 0, res)
	for _, r := range res.Remedies {
		if r.Kind == RemedyLoad && (r.Outcome != Found || r.Enough < 0.09) {
			t.Errorf("load: %s; want a bracket at 9%% or more", r.Text)
		}
	}
}

// TestProbeRunawayFastFails: the runaway's breakers fail operations
// fast, and a fast-failed operation makes no call. Counted as load, it
// cannot pass for health: fleet-50's breakers fail about 90% of its
// failed operations fast, so its amplification (about 0.67) is below
// its healthy self's (1.13): by amplification alone, "not in
// a storm". Its series shows why it is not: its breakers open and close
// in turn, about half its operations failing, the fast-fails coming and
// going. The fixed policy's amplification is its healthy self's (1.10
// both), but its budget refuses the retry of about 11% of its
// operations where its healthy self's refuses about 3% (its retries'
// load, 550/s, climbs the failure curve), and it succeeds about 89%
// against 97%: judged on its success, its operating point is overloaded
// too, if far less (by amplification: "not in a storm, the dependency's own
// errors"). Both, without a trigger, are unstable, not metastable.
func TestProbeRunawayFastFails(t *testing.T) {
	if testing.Short() {
		t.Skip("about 100 simulations of 3 minutes at 500 operations/s")
	}
	sc := builtin(t, "runaway-cascade")
	for _, name := range []string{"fleet-50", "fixed"} {
		res := mustProbe(t, sc, Options{Strategy: name})
		if res.Finding != FindingUnstable || res.Metastable {
			t.Fatalf("%s: finding %s; %s", name, res.Finding, res.Summary)
		}
		b, h := res.BaselineFastFailed, res.Healthy.FastFailed
		if b.Min <= h.Max+SuccessTolerance || res.Baseline.Max >= res.Healthy.Success.Min-SuccessTolerance {
			t.Errorf("%s: %v failed fast, healthy %v; %v succeed, healthy %v: want more fast-fails and less success", name, b, h, res.Baseline, res.Healthy.Success)
		}
		if name == "fleet-50" && res.BaselineAmplification.Max >= res.Healthy.Amplification.Min {
			t.Errorf("fleet-50: amplification %v, healthy %v; want it below: the case the fast-fails' count is for", res.BaselineAmplification, res.Healthy.Amplification)
		}
		for _, want := range []string{name + " is unstable without a trigger", "failed fast", "Keeping it out of overload needs "} {
			if !strings.Contains(res.Summary, want) {
				t.Errorf("%s: summary %q\nwant ...%s...", name, res.Summary, want)
			}
		}
		checkPersists(t, sc, res)
		// The series: its breakers fail operations fast all through the
		// span judged, in each quarter of it.
		out := runOne(t, sc, name)
		sr, m := out.Strategies[0].Series, &out.Strategies[0].Metrics
		q := (res.SpanTo - res.WindowFrom) / 4
		for i := range engine.Duration(4) {
			from := res.WindowFrom + i*q
			if n := bucketSum(sr, sr.FastFailed, from, from+q); name == "fleet-50" && n == 0 {
				t.Errorf("%s: no call failed fast from %s to %s", name, from, from+q)
			}
		}
		// The operations it fails fast are those its breaker or its
		// budget ends, over the whole run as over the window.
		if share := (m.GaveUpBreaker + m.GaveUpBudget) / m.Operations; share < b.Min-0.03 || share > b.Max+0.03 {
			t.Errorf("%s: %.1f%% of the run's operations given up by the breaker or the budget, %v of the window's failed fast", name, share*100, b)
		}
		for _, r := range res.Remedies {
			if r.Kind == RemedyLoad && r.Outcome != Found {
				t.Errorf("%s: load: %s", name, r.Text)
			}
		}
	}
}

// slowDrainJSON: 200 operations/s against a dependency of 500/s with a
// long queue, frozen from 5 s to 15 s. The backlog of the freeze makes
// every attempt time out (1 s), and every operation retries once: 400
// calls/s, 100/s less than the dependency serves, so the backlog drains
// by itself at unchanged load, about 27 s after the freeze ends. The
// probe must not call it a storm nor offer it remedies (nor, given a
// settle of 28 s, explain what is left of the drain as "the
// dependency's own errors", which it has none of).
const slowDrainJSON = `{
  "version": 1, "name": "slow drain", "seed": 1, "runs": 2,
  "workload": {"clients": 100, "arrival": "poisson", "rate": 200, "duration": "90s"},
  "dependency": {
    "workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 10000,
    "phases": [{"kind": "freeze", "from": "5s", "to": "15s"}]
  },
  "strategies": [{"name": "twice", "max_attempts": 2, "attempt_timeout": "1s", "backoff": {"kind": "constant", "base": "100ms"}},
    {"name": "once", "max_attempts": 1, "attempt_timeout": "1s"}]
}`

// TestProbeSlowToRecover: a bad state that ends by itself at unchanged
// load is slow to recover but recovering, not metastable, and gets no
// remedy; the time it is back is checked against the run's series (the
// operations fail until about then, and none fails once those started
// after it end). With retries (twice) it is in a storm's state; without
// (once, at 350 operations/s, so that its backlog outlasts the settle:
// it drains at 150/s) its load is its healthy one throughout, and its
// gap is the backlog draining, not the dependency's errors.
func TestProbeSlowToRecover(t *testing.T) {
	sc, err := engine.Parse([]byte(slowDrainJSON))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"twice", "once"} {
		if name == "once" {
			sc.Workload.Rate = 350
		}
		res := mustProbe(t, sc, Options{Strategy: name})
		if res.Finding != FindingRecovering || res.Metastable || res.Back == nil || res.BackProjected {
			t.Fatalf("%s: finding %s, back %v (projected %v); %s", name, res.Finding, res.Back, res.BackProjected, res.Summary)
		}
		if res.Simulations != 2*res.Seeds {
			t.Errorf("%s: %d simulations; a recovering strategy needs no remedy (%d)", name, res.Simulations, 2*res.Seeds)
		}
		for _, r := range res.Remedies {
			if r.Outcome != NoStorm && r.Outcome != NotApplicable || r.Enough != 0 {
				t.Errorf("%s: %s: %s", name, r.Kind, r.Text)
			}
		}
		back := *res.Back
		for _, want := range []string{name + " is slow to recover but recovering", "back by itself from " + back.String() + " on, at unchanged load"} {
			if !strings.Contains(res.Summary, want) {
				t.Errorf("%s: summary %q\nwant ...%s...", name, res.Summary, want)
			}
		}
		if strings.Contains(res.Summary, "own errors") || strings.Contains(res.Summary, "storm of") {
			t.Errorf("%s: summary %q", name, res.Summary)
		}
		out := runOne(t, sc, name)
		sr := out.Strategies[0].Series
		life := lifetime(strategyOf(t, sc, name))
		// Bad after the trigger: more than a point of the operations
		// ending from the window's start to back fail; none fails once
		// the operations started from back have lived their longest.
		ok, failed := bucketSum(sr, sr.Successes, res.WindowFrom, back), bucketSum(sr, sr.Failures, res.WindowFrom, back)
		if float64(failed) <= SuccessTolerance*float64(ok+failed) {
			t.Errorf("%s: %d of %d operations ending from %s to %s fail: no bad state before back", name, failed, ok+failed, res.WindowFrom, back)
		}
		q := (res.SpanTo - res.WindowFrom) / 4
		for x := back + life; x+q <= res.WindowTo; x += engine.Duration(time.Second) {
			ok, failed := bucketSum(sr, sr.Successes, x, x+q), bucketSum(sr, sr.Failures, x, x+q)
			if float64(failed) > SuccessTolerance*float64(ok+failed) {
				t.Errorf("%s: %d of %d operations ending from %s to %s fail, back at %s", name, failed, ok+failed, x, x+q, back)
				break
			}
		}
		if after := back - engine.Duration(15e9); name == "twice" && (after < engine.Duration(20e9) || after > engine.Duration(35e9)) {
			t.Errorf("%s: back %s after the freeze ends; want about 27s", name, after)
		}
	}
}

// onceJSON is a dependency with 5% errors of its own and a 2 s outage,
// and a client that never retries. After the outage it succeeds 95% of
// the time, as it does without the outage: no storm, though under 99%.
// Before the judgement against the strategy's own baseline, the probe
// called it a storm no remedy ends and offered it a retry budget.
const onceJSON = `{
  "version": 1, "name": "errors and an outage", "seed": 1, "runs": 2,
  "workload": {"clients": 100, "arrival": "poisson", "rate": 200, "duration": "30s"},
  "dependency": {
    "workers": 10, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 200,
    "error_rate": 0.05,
    "phases": [{"kind": "outage", "from": "5s", "to": "7s", "status": 503}]
  },
  "strategies": [{"name": "once", "max_attempts": 1, "attempt_timeout": "1s"},
    {"name": "thrice", "max_attempts": 3, "attempt_timeout": "1s", "backoff": {"kind": "constant", "base": "100ms"}}]
}`

// TestProbeBaselineBelow99: the judgement is against the strategy's own
// healthy baseline, not 99%: a strategy at its baseline of about 95% is
// not in a storm, and a retry budget is not offered to a strategy that
// never retries.
func TestProbeBaselineBelow99(t *testing.T) {
	sc, err := engine.Parse([]byte(onceJSON))
	if err != nil {
		t.Fatal(err)
	}
	res := mustProbe(t, sc, Options{})
	if res.Metastable || res.Healthy.Success.Max >= 0.99 {
		t.Fatalf("once: in a storm %v, healthy %v; want no storm with a healthy baseline under 99%%", res.Metastable, res.Healthy)
	}
	want := "not in a storm: after the trigger it is at its own baseline (94.05%..95.28% success, amplification 1.000, as without the trigger; the floor is the dependency's own errors)"
	if res.NoStorm != want || res.Summary != "once is "+want+"." {
		t.Errorf("no storm %q\nsummary %q\nwant %q", res.NoStorm, res.Summary, want)
	}
	if b := res.Remedies[2]; b.Kind != RemedyBudget || b.Outcome != NotApplicable || !strings.Contains(b.Text, "never retries") {
		t.Errorf("budget %+v; want not tried on a strategy that never retries", b)
	}
	// The same dependency with a client that retries: its retries mask
	// the 5% errors, it is not in a storm either, and its budget is not
	// called inapplicable.
	res = mustProbe(t, sc, Options{Strategy: "thrice"})
	if res.Metastable || res.Remedies[2].Outcome != NoStorm {
		t.Errorf("thrice: in a storm %v, budget %s; %s", res.Metastable, res.Remedies[2].Outcome, res.NoStorm)
	}
}

// TestProbeNoBudgetWithoutRetries: bisection does not try a retry budget
// on a strategy that never retries, whether or not hedging is the only
// way it could.
func TestProbeNoBudgetWithoutRetries(t *testing.T) {
	sc := stormScenario(t)
	st := &sc.Strategies[0]
	st.MaxAttempts = 1
	p := &prober{sc: sc, res: &Result{}}
	r, err := p.bisect(context.Background(), RemedyBudget, new(int))
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != NotApplicable || r.Simulations != 0 || r.Text != neverRetries {
		t.Errorf("budget on a strategy of one attempt: %+v", r)
	}
	for _, s := range []engine.Strategy{
		{Policy: engine.Policy{MaxAttempts: 1, Hedging: &engine.Hedging{Delay: engine.Duration(1e7)}}},
		{Policy: engine.Policy{MaxAttempts: 1}, Layers: []engine.Policy{{MaxAttempts: 2}}},
		{Policy: engine.Policy{MaxAttempts: 0}},
	} {
		if !retries(&s) {
			t.Errorf("%+v: said never to retry", s)
		}
	}
}

// TestProbeAtInTrigger: remedies that stay from at on are refused from
// inside the trigger; from its start or before they are said to prevent
// the storm rather than end it.
func TestProbeAtInTrigger(t *testing.T) {
	sc := stormScenario(t)
	at := engine.Duration(6e9)
	_, err := Run(context.Background(), sc, Options{At: &at, MaxWorkers: 40})
	if err == nil || !strings.Contains(err.Error(), "at 6s is inside the trigger (5s to 7s)") || !strings.Contains(err.Error(), "give at 5s or earlier to see whether they prevent the storm, or 7s or later") {
		t.Errorf("at 6s: %v", err)
	}
	at = engine.Duration(5e9)
	res := mustProbe(t, sc, Options{At: &at, MaxWorkers: 40})
	if !res.Prevents || !strings.Contains(res.Criterion, "from 5s on, before the trigger starts at 5s: they prevent a storm rather than end one") {
		t.Errorf("at 5s: prevents %v, criterion %q", res.Prevents, res.Criterion)
	}
	// Without a trigger, remedies from 0 prevent the storm; later ones
	// come after it has built.
	sc.Dependency.Phases = nil
	at = engine.Duration(10e9)
	res = mustProbe(t, sc, Options{At: &at, Settle: engine.Duration(5e9), MaxWorkers: 40})
	if res.Prevents || !strings.Contains(res.Criterion, "from 10s on; the scenario has no trigger: a storm builds from the start, and they come after it") {
		t.Errorf("no trigger, at 10s: prevents %v, criterion %q", res.Prevents, res.Criterion)
	}
}

func BenchmarkProbe(b *testing.B) {
	sc := stormScenario(b)
	for b.Loop() {
		mustProbe(b, sc, Options{MaxWorkers: 40})
	}
}

// TestProbeBudgetWeakestEnds: when the weakest budget tried (a ratio of
// 100%) already ends the storm, the finding says any budget up to it does.
func TestProbeBudgetWeakestEnds(t *testing.T) {
	sc := stormScenario(t)
	sc.Workload.Rate = 300
	res := mustProbe(t, sc, Options{MaxWorkers: 40})
	r := res.Remedies[2]
	if r.Kind != RemedyBudget || r.Outcome != Found || r.Enough != 1 || r.NotEnough != 0 {
		t.Fatalf("budget %+v; want found at a ratio of 1", r)
	}
	if want := "any retry budget up to 100% (the weakest tried ends it)"; r.Text != want || !strings.Contains(res.Summary, want) {
		t.Errorf("text %q, summary %q; want %q", r.Text, res.Summary, want)
	}
}

// TestProbeNothingToJudge: a burst workload starts nothing after its
// trigger; the probe says so instead of judging an empty window.
func TestProbeNothingToJudge(t *testing.T) {
	sc, err := engine.Parse([]byte(`{"version": 1, "name": "burst", "seed": 1, "runs": 2,
		"workload": {"clients": 200, "arrival": "burst", "burst_at": "1s"},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "20ms"}, "queue_capacity": 50,
			"phases": [{"kind": "outage", "from": "1s", "to": "2s", "status": 503}]},
		"strategies": [{"name": "eager", "max_attempts": 6, "attempt_timeout": "1s", "backoff": {"kind": "constant", "base": "50ms"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []*engine.Duration{nil, new(engine.Duration)} {
		_, err := Run(context.Background(), sc, Options{At: at, Settle: 1})
		if err == nil || !strings.Contains(err.Error(), `the judged window is empty: the workload is a burst (arrival "burst")`) ||
			!strings.Contains(err.Error(), "nothing to judge") || strings.Contains(err.Error(), "1ns") {
			t.Errorf("at %v: %v; want nothing to judge after a burst", at, err)
		}
	}
}

// TestProbeAtOutside: a remedy's time before 0 is refused with the times
// allowed; one after the arrivals end leaves no window to judge.
func TestProbeAtOutside(t *testing.T) {
	sc := stormScenario(t)
	at := engine.Duration(-5e9)
	_, err := Run(context.Background(), sc, Options{At: &at})
	if err == nil || !strings.Contains(err.Error(), "at -5s must be a non-negative duration within the scenario's duration, 0s..30s") {
		t.Errorf("at %s: %v", at, err)
	}
	at = engine.Duration(500e9)
	_, err = Run(context.Background(), sc, Options{At: &at})
	if err == nil || !strings.Contains(err.Error(), "the arrivals or the scenario's next phase end it at 30s; give an earlier remedy time") {
		t.Errorf("at %s: %v", at, err)
	}
}

// TestProbeJudgeTrend: the persistence rule on hand-made windows of 40
// segments (four quarters of 10), one seed, healthy at 100% with one
// call per operation. A gap that narrows quarter after quarter fast
// enough is recovering, back at the projection, said as one; a gap
// that swings (breakers opening and closing) or holds is not; a state
// back from a segment on is recovering, back from it.
func TestProbeJudgeTrend(t *testing.T) {
	seg := func(ok, calls int64) segCounts { return segCounts{ops: 100, ok: ok, calls: calls} }
	window := func(ok func(i int) int64) windowStat {
		segs := make([]segCounts, 40)
		for i := range segs {
			segs[i] = seg(ok(i), 300) // amplification 3: a storm's load
		}
		return windowStat{segs: segs}
	}
	for _, tc := range []struct {
		name      string
		ok        func(i int) int64
		trigger   bool
		finding   Finding
		back      engine.Duration // 0: none
		projected bool
	}{
		{"holds", func(int) int64 { return 10 }, true, FindingMetastable, 0, false},
		{"holds without a trigger", func(int) int64 { return 10 }, false, FindingUnstable, 0, false},
		{"swings", func(i int) int64 { return []int64{10, 80, 10, 80}[i/10] }, true, FindingMetastable, 0, false},
		// Gaps of 80, 60, 40 and 20 points: at 20 points a quarter, the
		// last quarter's mid (35 s) plus 19/20 of a quarter (9.5 s).
		{"narrows", func(i int) int64 { return []int64{20, 40, 60, 80}[i/10] }, true, FindingRecovering, engine.Duration(45e9), true},
		// Gaps of 80, 70, 60, 50: 49/10 quarters after 35 s, past the
		// window's end (40 s) plus its length.
		{"narrows too slowly", func(i int) int64 { return []int64{20, 30, 40, 50}[i/10] }, true, FindingMetastable, 0, false},
		{"back", func(i int) int64 { return map[bool]int64{true: 10, false: 100}[i < 13] }, true, FindingRecovering, engine.Duration(13e9), false},
	} {
		p := &prober{from: 0, to: engine.Duration(40e9), seg: 1e9, quarter: 10, span: 40, spanTo: engine.Duration(40e9), perOp: 1, end: 0, trig: tc.trigger,
			sc: &engine.Scenario{}, res: &Result{}}
		h := window(func(int) int64 { return 100 })
		for i := range h.segs {
			h.segs[i].calls = 100
		}
		p.healthy = []windowStat{p.stat(h.segs)}
		w := window(tc.ok)
		p.judge([]windowStat{p.stat(w.segs)}, tc.trigger)
		r := p.res
		var back engine.Duration
		if r.Back != nil {
			back = *r.Back
		}
		t.Logf("%s: %s", tc.name, r.Persistence)
		if r.Finding != tc.finding || back != tc.back || r.BackProjected != tc.projected {
			t.Errorf("%s: %s, back %s (projected %v); want %s, %s (%v): %s", tc.name, r.Finding, back, r.BackProjected, tc.finding, tc.back, tc.projected, r.Persistence)
		}
	}
}

// TestProbeFailoverMetastable: the failover-incident built-in is the
// catalogue's metastable failure of retries at every layer: its
// description says a 20 s failover becomes a long incident. Retrying at
// every layer (with or without jitter) the bad state outlives the
// failover at unchanged load, to the end of the span judged, and the
// run's series shows it; retrying at one layer, or with a budget, the
// strategy is healthy after it.
func TestProbeFailoverMetastable(t *testing.T) {
	sc := builtin(t, "failover-incident")
	for _, tc := range []struct {
		name    string
		finding Finding
	}{{"every-layer", FindingMetastable}, {"jitter", FindingMetastable}, {"one-layer", FindingHealthy}, {"budget", FindingHealthy}} {
		res := mustProbe(t, sc, Options{Strategy: tc.name})
		if res.Finding != tc.finding || res.Metastable != (tc.finding == FindingMetastable) {
			t.Errorf("%s: %s; want %s: %s", tc.name, res.Finding, tc.finding, res.Summary)
			continue
		}
		if tc.finding == FindingMetastable {
			if want := tc.name + " is metastable: the bad state outlives its trigger, which ended at 30s, at unchanged load"; !strings.HasPrefix(res.Summary, want) {
				t.Errorf("%s: summary %q\nwant %s...", tc.name, res.Summary, want)
			}
			checkPersists(t, sc, res)
		}
	}
}

// TestProbeRemediesReachEveryLevel: in failover-incident, every-layer's
// three levels each retry 3 times. A budget at the outermost level alone
// never ends its storm (that level never retries: its one attempt takes
// its whole deadline), so the probe gives the budget to every level that
// retries, and tries retrying at one level only. Both end the storm, and
// the found remedies, re-run on their own, do.
func TestProbeRemediesReachEveryLevel(t *testing.T) {
	sc := builtin(t, "failover-incident")
	res := mustProbe(t, sc, Options{Strategy: "every-layer"})
	if res.Finding != FindingMetastable {
		t.Fatalf("every-layer is %s, not metastable: %s", res.Finding, res.Summary)
	}
	byKind := map[RemedyKind]RemedyResult{}
	for _, r := range res.Remedies {
		byKind[r.Kind] = r
	}
	b := byKind[RemedyBudget]
	if b.Outcome != Found || !strings.Contains(b.Change, "at every level allowed to retry (max_attempts other than 1, or hedging): its own policy, layers[0], layers[1]") ||
		!strings.Contains(b.Text, "retry budget at each of its 3 levels allowed to retry") || !strings.Contains(res.Summary, "at each of its 3 levels allowed to retry") {
		t.Errorf("budget: %s %q (%s); want a budget found at every level", b.Outcome, b.Text, b.Change)
	}
	o := byKind[RemedyOneLevel]
	if o.Outcome != Found || o.Enough != 2 || !strings.HasPrefix(o.Text, "retrying at layer 2 (layers[1]) only") {
		t.Errorf("one level: %s %q, level %g; want retrying at the repository's level (layer 2) only", o.Outcome, o.Text, o.Enough)
	}
	if !strings.Contains(res.Summary, "retrying at layer 2 (layers[1]) only") {
		t.Errorf("the summary does not name retrying at one level: %s", res.Summary)
	}
	checkBrackets(t, sc, slices.IndexFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == "every-layer" }), res)

	// The outermost level alone, the remedy of before, does not end it.
	outer := *sc
	outer.Strategies = slices.Clone(sc.Strategies)
	for i := range outer.Strategies {
		if outer.Strategies[i].Name == "every-layer" {
			outer.Strategies[i].Budget = &engine.Budget{Kind: engine.BudgetRatio, Ratio: 0.01, Window: DefaultBudgetWindow}
		}
	}
	if r := mustProbe(t, &outer, Options{Strategy: "every-layer"}); r.Finding != FindingMetastable {
		t.Errorf("a 1%% budget at the outermost level alone makes every-layer %s: that level retries after all, and this test no longer shows why budgets go to every level", r.Finding)
	}
}

// TestRetryingAtOneLevelApplies: retrying at one level only is tried on
// a layered strategy with two levels or more allowed to retry, and says
// why not otherwise; a strategy without layers does not list it.
func TestRetryingAtOneLevelApplies(t *testing.T) {
	one, four := engine.Policy{MaxAttempts: 1}, engine.Policy{MaxAttempts: 4}
	hedged := engine.Policy{MaxAttempts: 2, Hedging: &engine.Hedging{Delay: engine.Duration(1e7)}}
	for _, tc := range []struct {
		name      string
		st        engine.Strategy
		steps     int
		why       string
		unlayered bool
	}{
		{"no layers", engine.Strategy{Policy: four}, 0, "", true},
		{"two levels retry", engine.Strategy{Policy: four, Layers: []engine.Policy{one, four}}, 2, "", false},
		{"a hedged level", engine.Strategy{Policy: one, Layers: []engine.Policy{hedged, four}}, 2, "", false},
		{"one level retries", engine.Strategy{Policy: one, Layers: []engine.Policy{one, four}}, 0, "only one level of the strategy is allowed to retry already", false},
		{"none retries", engine.Strategy{Policy: one, Layers: []engine.Policy{one}}, 0, "never retries", false},
	} {
		p := &prober{sc: &engine.Scenario{Strategies: []engine.Strategy{tc.st}}}
		if got := p.steps(RemedyOneLevel); got != tc.steps {
			t.Errorf("%s: %d levels to try, want %d", tc.name, got, tc.steps)
		}
		if got := p.unlayered(RemedyOneLevel); got != tc.unlayered {
			t.Errorf("%s: left out %v, want %v", tc.name, got, tc.unlayered)
		}
		why := p.notApplicable(RemedyOneLevel)
		if tc.unlayered {
			continue
		}
		if (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
			t.Errorf("%s: not applicable %q, want %q", tc.name, why, tc.why)
		}
	}
	sc := builtin(t, "failover-incident")
	r := mustProbe(t, sc, Options{Strategy: "one-layer"})
	if o := r.Remedies[len(r.Remedies)-1]; o.Kind != RemedyOneLevel || o.Outcome != NotApplicable || !strings.Contains(o.Text, "only one level") {
		t.Errorf("one-layer: the last remedy is %s %s %q, want retrying at one level only, not applicable: only its repository retries", o.Kind, o.Outcome, o.Text)
	}
}

// TestCounterfactualLoadPhases: the counterfactual leaves out a load
// phase that raises the load (the trigger), and keeps a daily curve and
// a shed.
func TestCounterfactualLoadPhases(t *testing.T) {
	s := func(x float64) engine.Duration { return engine.Duration(x * float64(time.Second)) }
	sc := &engine.Scenario{Workload: engine.Workload{Load: []engine.LoadPhase{{Kind: engine.LoadDaily, From: 0, To: s(60), Amplitude: 0.2, Period: s(60)},
		{Kind: engine.LoadStep, From: s(5), To: s(60), Factor: 0.5}, {Kind: engine.LoadSpike, From: s(20), To: s(25), Rate: 10}}}}
	p := &prober{sc: sc}
	if cf := p.counterfactual(); len(cf.Workload.Load) != 2 || cf.Workload.Load[1].Kind != engine.LoadStep {
		t.Errorf("counterfactual keeps %+v, want the daily curve and the shed", cf.Workload.Load)
	}
}
