package scenarios

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// A story holds a built-in's text to its run: each claim that its summary,
// look_at and notes make is a check of the run they describe, so that the
// text and its test change together. sc is the built-in's scenario, freshly
// parsed; a story may change it to run a variant its text speaks of (another
// seed, another phase), never to make a claim true.
type story func(t *testing.T, sc *engine.Scenario)

// stories is the registry of stories, by slug: a built-in whose text has
// been checked against its run has its entry here.
var stories = map[string]story{
	"e03a-transient-failures": storyE03A,
	"failover-incident":       storyFailover,
}

// TestStories walks every built-in and runs its story. A built-in without
// one is skipped by name, so that the list of texts nobody has held to
// their run is in the test's output (go test -v -run TestStories).
func TestStories(t *testing.T) {
	var missing []string
	for _, b := range All() {
		if _, ok := stories[b.Slug]; !ok {
			missing = append(missing, b.Slug)
		}
	}
	if len(missing) > 0 {
		t.Logf("%d of %d built-ins have no story yet: %s", len(missing), len(All()), strings.Join(missing, ", "))
	}
	for _, b := range All() {
		t.Run(b.Slug, func(t *testing.T) {
			check, ok := stories[b.Slug]
			if !ok {
				t.Skipf("no story: the text of %s is not checked against its run", b.Slug)
			}
			check(t, builtin(t, b.Slug))
		})
	}
}

// TestStoriesNameBuiltins: a story whose slug is no built-in's (renamed,
// or misspelt) would never run.
func TestStoriesNameBuiltins(t *testing.T) {
	known := append(slices.Clip(slugs), searchSlugs...)
	for slug := range stories {
		if !slices.Contains(known, slug) {
			t.Errorf("story %q: no built-in has that slug", slug)
		}
	}
}

// seedRuns runs sc once per seed of res, each seed alone, and returns the
// runs in res's seed order.
func seedRuns(t *testing.T, sc *engine.Scenario, res *engine.Result) []*engine.Result {
	t.Helper()
	var runs []*engine.Result
	for _, seed := range res.Seeds {
		one := *sc
		one.Seed, one.Runs, one.Seeds = seed, 1, nil
		runs = append(runs, run(t, &one))
	}
	return runs
}

// storyE03A: the seeds outweigh the strategies on load, not on success.
func storyE03A(t *testing.T, sc *engine.Scenario) {
	res := run(t, sc)
	if len(res.Seeds) != 20 {
		t.Fatalf("%d seeds; the text says twenty", len(res.Seeds))
	}
	// Load: each strategy's range over the seeds is more than ten times
	// the gap between the strategies' means.
	for _, metric := range []string{"attempts", "peak_per_1s"} {
		lo, hi := 0.0, 0.0
		for i, st := range res.Strategies {
			v, _ := st.Metrics.Metric(metric)
			if i == 0 || v < lo {
				lo = v
			}
			hi = max(hi, v)
		}
		for _, st := range res.Strategies {
			mm := st.Spread[metric]
			if mm.Max-mm.Min <= 10*(hi-lo) {
				t.Errorf("%s: %s ranges over %v..%v across the seeds, not more than ten times the gap %v between the strategies' means", st.Name, metric, mm.Min, mm.Max, hi-lo)
			}
		}
	}
	// Success: A, B and C succeed on every operation of every seed; D is
	// below them on every seed, its range over the seeds wider than its
	// mean gap to them.
	lo, hi := 1.0, 0.0 // D's, seed by seed
	for i, one := range seedRuns(t, sc, res) {
		d := metrics(t, one, "D").SuccessRate
		lo, hi = min(lo, d), max(hi, d)
		for _, name := range []string{"A", "B", "C"} {
			if m := metrics(t, one, name); m.SuccessRate != 1 || m.SuccessRate <= d {
				t.Errorf("seed %d: %s succeeded %v, D %v; want 1, and D below it", res.Seeds[i], name, m.SuccessRate, d)
			}
		}
	}
	d := strategyResult(t, res, "D")
	if mm := d.Spread["success_rate"]; mm.Min != lo || mm.Max != hi {
		t.Fatalf("D: the seeds run alone range over %v..%v, the run over %v..%v", lo, hi, mm.Min, mm.Max)
	}
	if mm := d.Spread["success_rate"]; mm.Max-mm.Min <= 1-d.Metrics.SuccessRate {
		t.Errorf("D: success rate over the seeds %v..%v, not wider than its mean gap %v to the others", mm.Min, mm.Max, 1-d.Metrics.SuccessRate)
	}
	// The notes: a budget counted since the start instead of over 1 s.
	since := *sc
	since.Strategies = slices.Clone(sc.Strategies)
	b := *since.Strategies[3].Budget
	b.Window = 0
	since.Strategies[3].Budget = &b
	if m := metrics(t, run(t, &since), "D"); round(m.RetriesDenied, 2) != 1.05 || round(m.SuccessRate, 4) != 0.9996 || round(d.Metrics.RetriesDenied, 2) != 6.75 || round(d.Metrics.SuccessRate, 4) != 0.9976 {
		t.Errorf("D's budget since the start: %v denied, %v succeeded; over 1 s: %v and %v; the notes say 1.05 and 99.96%%, 6.75 and 99.76%%",
			m.RetriesDenied, m.SuccessRate, d.Metrics.RetriesDenied, d.Metrics.SuccessRate)
	}
}

// round rounds x to n decimals, as the text quotes it.
func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}

// storyFailover: three layers of retries turn a 20 s failover into an
// incident that lasts while requests arrive; one layer or a budget
// recovers at once, jitter at every layer does not.
func storyFailover(t *testing.T, sc *engine.Scenario) {
	if ws := strings.Join(engine.Warnings(sc), "\n"); !strings.Contains(ws, `"every-layer": retries at 3 levels multiply to up to 64 dependency calls per operation`) {
		t.Errorf("warnings:\n%s\nwant every-layer's up to 64 database calls per request", ws)
	}
	res := run(t, sc)
	arrivalsEnd := time.Duration(sc.Workload.Duration)
	capacity := int32(sc.Dependency.QueueCapacity)
	for _, name := range []string{"every-layer", "jitter"} {
		st := strategyResult(t, res, name)
		if n := successesIn(st, 40*time.Second, arrivalsEnd); n != 0 {
			t.Errorf("%s: %d successes from 40 s until arrivals stop; the text says none", name, n)
		}
		notRecovered(t, st)
		// The queue fills within seconds of the database's return at 30 s
		// and stays full (each bucket's peak) until arrivals stop.
		s := st.Series
		b := time.Duration(s.BucketMS * float64(time.Millisecond))
		for i, q := range s.QueueLength {
			if at := time.Duration(i) * b; at >= 35*time.Second && at+b <= arrivalsEnd && q < capacity*9/10 {
				t.Errorf("%s: queue at %d at %v; the text says it stays full", name, q, at)
				break
			}
		}
	}
	for _, name := range []string{"one-layer", "budget"} {
		st := strategyResult(t, res, name)
		if m := st.Metrics; m.Recovered != 1 || !m.RecoveryS.Applies() || m.RecoveryS != 0 {
			t.Errorf("%s: recovered %v, recovery_s %v; the text says it recovers at once", name, float64(m.Recovered), float64(m.RecoveryS))
		}
		if s := successShare(t, st, 40, 110); s < 0.99 {
			t.Errorf("%s: %.1f%% succeeded from 40 s to 110 s, want a quick recovery", name, 100*s)
		}
	}
	every, jitter := metrics(t, res, "every-layer"), metrics(t, res, "jitter")
	if math.Round(jitter.Amplification) != 10 || math.Round(every.Amplification) != 6 || jitter.PeakPer1s != 1261 || every.PeakPer1s != 749 {
		t.Errorf("jitter: %v calls per request, %v in the busiest second; no jitter: %v and %v; the text says about 10 and 1,261, 6 and 749",
			jitter.Amplification, jitter.PeakPer1s, every.Amplification, every.PeakPer1s)
	}
	// Without the failover the same traffic is healthy: the storm is
	// metastable, kept alive by retries alone.
	calm := *sc
	calm.Dependency.Phases = nil
	if m := metrics(t, run(t, &calm), "every-layer"); m.SuccessRate < 0.999 {
		t.Errorf("without a failover: %.2f%% succeeded", 100*m.SuccessRate)
	}
	// Capacity added ends it.
	scaled := run(t, withPhase(sc, engine.Phase{Kind: "capacity", From: dur(t, "60s"), To: dur(t, "1h"), Workers: 40}))
	if s := successShare(t, strategyResult(t, scaled, "every-layer"), 75, 120); s < 0.99 {
		t.Errorf("with capacity added at 60 s: %.1f%% succeeded from 75 s, want recovery", 100*s)
	}
	// Load removed ends it: with no user requests after 60 s, the database
	// drains and is idle well before the run ends.
	short := *sc
	short.Workload.Duration = dur(t, "60s")
	st := strategyResult(t, run(t, &short), "every-layer")
	if n := len(st.Series.QueueLength); n == 0 || st.Series.QueueLength[n-1] != 0 || st.Metrics.SettleS > 100 {
		t.Errorf("with the load removed at 60 s the storm should end: settled at %v s", st.Metrics.SettleS)
	}
}
