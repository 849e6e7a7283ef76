//go:build !nosearch

package view

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
	"github.com/retrylab/retrylab/shared/scenarios"
)

func builtinScenario(t *testing.T, slug string) *engine.Scenario {
	t.Helper()
	b, ok := scenarios.Get(slug)
	if !ok {
		t.Fatal("no " + slug)
	}
	sc, err := b.Parse()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestSearchFormIsTheDefaultSearch: the form holds engine.DefaultSearchFor
// knob for knob and value for value, every value ticked, in words; its
// objectives are the default's, then empty slots; the search the page
// writes from the form as it comes is the default search.
func TestSearchFormIsTheDefaultSearch(t *testing.T) {
	for _, c := range []struct{ slug, strategy string }{
		{"e03b-synchronized-recovery", "C"},
		{"failover-incident", "every-layer"},
		{"hedged-requests", ""},
	} {
		sc := builtinScenario(t, c.slug)
		name := c.strategy
		if name == "" {
			name = sc.Strategies[len(sc.Strategies)-1].Name
		}
		f, err := SearchFormOf(sc, name)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.DefaultSearchFor(sc, name)
		// The search the page writes: every ticked value, every objective set.
		got := engine.Search{Strategy: f.Strategy}
		for _, k := range f.Knobs {
			kn := engine.Knob{Path: k.Path}
			for _, v := range k.Values {
				if v.Label == "" || strings.ContainsAny(v.Label, "{}\"") {
					t.Errorf("%s: %s's value %s is labelled %q", c.slug, k.Path, v.Value, v.Label)
				}
				if v.Checked {
					kn.Values = append(kn.Values, v.Value)
				}
			}
			got.Knobs = append(got.Knobs, kn)
		}
		for _, o := range f.Objectives {
			if o.Value == "" {
				continue
			}
			ch := f.choice(o.Value)
			if ch == nil {
				t.Fatalf("%s: objective %q is not among the choices", c.slug, o.Value)
			}
			got.Objectives = append(got.Objectives, engine.Objective{Metric: ch.Metric, Goal: ch.Goal})
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("%s: the form's search is\n%s\nwant\n%s", c.slug, a, b)
		}
		if len(f.Objectives) != engine.MaxObjectives {
			t.Errorf("%s: %d objective slots, want %d", c.slug, len(f.Objectives), engine.MaxObjectives)
		}
		goals := "highest success rate in the affected window, then lowest peak calls in 100 ms"
		if c.slug == "hedged-requests" {
			// Hedging is judged on its tail latency too.
			goals = "highest success rate in the affected window, then lowest latency p99, all operations, then lowest peak calls in 100 ms"
		}
		if !strings.Contains(f.Intro, goals) {
			t.Errorf("%s: the intro says %q", c.slug, f.Intro)
		}
	}
}

// TestSearchFormWords: the labels of the knobs and values of the default
// searches, for one level and for layers.
func TestSearchFormWords(t *testing.T) {
	// brooker-contention's full has none of the settings the default
	// search adds knobs for: DefaultSearch's form.
	f, err := SearchFormOf(builtinScenario(t, "brooker-contention"), "full")
	if err != nil {
		t.Fatal(err)
	}
	labels := func(f *SearchForm) string {
		var out []string
		for _, k := range f.Knobs {
			var vs []string
			for _, v := range k.Values {
				vs = append(vs, v.Label)
			}
			out = append(out, k.Label+": "+strings.Join(vs, "; "))
		}
		return strings.Join(out, "\n")
	}
	want := `Max attempts: 2 attempts; 3 attempts; 4 attempts; 6 attempts
Backoff: exponential 100 ms → 2 s; exponential 200 ms → 2 s; exponential 500 ms → 5 s; exponential 1 s → 10 s
Jitter: none; full; equal; decorrelated
Retry budget: none; ratio 10% over 1 s; token_bucket 10 tokens, +0.1 per success`
	if got := labels(f); got != want {
		t.Errorf("one level's form:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(f.Intro, "(192 candidates as the default ticks them)") {
		t.Errorf("the intro says %q", f.Intro)
	}
	// E03-B's C has a timeout and a deadline: knobs on both, traded for
	// DefaultSearch's less telling values (108 candidates).
	f, err = SearchFormOf(builtinScenario(t, "e03b-synchronized-recovery"), "C")
	if err != nil {
		t.Fatal(err)
	}
	want = `Max attempts: 2 attempts; 3 attempts; 4 attempts
Backoff: exponential 100 ms → 2 s; exponential 1 s → 10 s
Jitter: none; full
Attempt timeout: 1 s; 2 s; 4 s
Deadline: 2.5 s; 5 s; 10 s`
	if got := labels(f); got != want {
		t.Errorf("C's form:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(f.Intro, "(108 candidates as the default ticks them)") {
		t.Errorf("the intro says %q", f.Intro)
	}
	f, err = SearchFormOf(builtinScenario(t, "failover-incident"), "every-layer")
	if err != nil {
		t.Fatal(err)
	}
	got := labels(f)
	if !strings.HasPrefix(got, "Max attempts at every level: 2 attempts") || !strings.Contains(got, "\nThe level that retries: every level; the outermost level") {
		t.Errorf("a layered strategy's form:\n%s", got)
	}
	if _, err := SearchFormOf(builtinScenario(t, "e03b-synchronized-recovery"), "nobody"); err == nil {
		t.Error("a form for a strategy the scenario lacks")
	}
}

// TestSearchFormWithinALibrary: for a strategy based on each library's
// preset, the form's values are the library's, the search it writes
// names the library (Within), its intro says whose limits apply, and the
// view of such a search promises an exact export; a search naming the
// library with a value beyond its values is told it may not export
// exactly, naming the knob and the value.
func TestSearchFormWithinALibrary(t *testing.T) {
	for _, lib := range engine.Libraries {
		sc := builtinScenario(t, "e03b-synchronized-recovery")
		sc.Strategies[2].BasedOn = lib.Presets[0]
		f, err := SearchFormOf(sc, "C")
		if err != nil {
			t.Fatal(err)
		}
		if f.Within != lib.Name || !strings.Contains(f.Intro, "kept within "+lib.Label+"'s limits") {
			t.Errorf("%s: the form's within %q, intro %q", lib.Name, f.Within, f.Intro)
		}
		s := &engine.Search{Strategy: "C", Within: f.Within}
		for i, k := range f.Knobs {
			if k.Path != lib.Knobs[i].Path || len(k.Values) != len(lib.Knobs[i].Values) {
				t.Errorf("%s: knob %d is %s with %d values, want the library's %s with %d", lib.Name, i, k.Path, len(k.Values), lib.Knobs[i].Path, len(lib.Knobs[i].Values))
			}
			kn := engine.Knob{Path: k.Path}
			for _, v := range k.Values[:1] { // a subset, as a reader unticks
				kn.Values = append(kn.Values, v.Value)
			}
			s.Knobs = append(s.Knobs, kn)
		}
		if got, want := limitsText(s, &lib), lib.Sentence()+"."; got != want {
			t.Errorf("%s: a subset of the library's values is told %q, want %q", lib.Name, got, want)
		}
		s.Knobs[0].Values = append(s.Knobs[0].Values, json.RawMessage(`9`))
		if got := limitsText(s, &lib); !strings.Contains(got, "may not export as "+lib.Format+" exactly: "+lib.Knobs[0].Path+" 9") {
			t.Errorf("%s: a value beyond the library's is told %q", lib.Name, got)
		}
	}
	// Without a library, no within and no such sentence.
	f, err := SearchFormOf(builtinScenario(t, "e03b-synchronized-recovery"), "C")
	if err != nil {
		t.Fatal(err)
	}
	if f.Within != "" || strings.Contains(f.Intro, "limits") {
		t.Errorf("C, not based on a library: within %q, intro %q", f.Within, f.Intro)
	}
}

// TestSearchFormConstraints: the form offers FormConstraints empty slots
// for the default search, which has none; every metric may be bounded, a
// rate in percent (Scale 100), a count as itself.
func TestSearchFormConstraints(t *testing.T) {
	sc := builtinScenario(t, "e03b-synchronized-recovery")
	f, err := SearchFormOf(sc, "C")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Constraints) != FormConstraints {
		t.Fatalf("%d constraint slots, want %d", len(f.Constraints), FormConstraints)
	}
	for i, c := range f.Constraints {
		if c.Metric != "" || c.Op != engine.OpAtMost || c.Label != fmt.Sprintf("Constraint %d", i+1) {
			t.Errorf("slot %d: %+v, want an empty one at most", i, c)
		}
	}
	if len(f.Metrics) != len(engine.MetricInfos) {
		t.Errorf("%d metrics may be bounded, want every one (%d)", len(f.Metrics), len(engine.MetricInfos))
	}
	scales := map[string]float64{}
	for _, m := range f.Metrics {
		scales[m.Key] = m.Scale
	}
	if scales["affected_success_rate"] != 100 || scales["peak_per_100ms"] != 1 || scales["latency_p99_ms"] != 1 {
		t.Errorf("scales: affected_success_rate %g, peak_per_100ms %g, latency_p99_ms %g; want 100, 1, 1", scales["affected_success_rate"], scales["peak_per_100ms"], scales["latency_p99_ms"])
	}
	if len(f.Ops) != 2 || f.Ops[0].Value != engine.OpAtMost || f.Ops[1].Value != engine.OpAtLeast {
		t.Errorf("ops %+v", f.Ops)
	}
}
