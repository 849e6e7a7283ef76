package scenarios

import (
	"math"
	"slices"
	"strings"
	"testing"

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
