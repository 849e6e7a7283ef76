package engine

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// knobOf returns the values of the knob of s with that path, as compact
// JSON, and whether s has it.
func knobOf(s *Search, path string) ([]string, bool) {
	i := slices.IndexFunc(s.Knobs, func(k Knob) bool { return k.Path == path })
	if i < 0 {
		return nil, false
	}
	var out []string
	for _, v := range s.Knobs[i].Values {
		out = append(out, compactJSON(v))
	}
	return out, true
}

// plainStrategy is a single-level strategy with none of the settings the
// default search adds knobs for.
func plainStrategy() Strategy {
	st := Strategy{Name: "C"}
	st.MaxAttempts = 3
	st.Backoff = Backoff{Kind: BackoffExponential, Base: Duration(1e8), Max: Duration(2e9)}
	st.Jitter = Jitter{Kind: JitterFull}
	return st
}

// defaultSearchScenario returns a small valid scenario of strategy st with its
// default search.
func defaultSearchScenario(t *testing.T, st Strategy) *Scenario {
	t.Helper()
	sc := builtinWithPresets(t, "e03b-synchronized-recovery")
	sc.Sweep = nil
	sc.Strategies = []Strategy{st}
	sc.Search = DefaultSearchFor(sc, st.Name)
	return sc
}

// TestDefaultSearchForKnobs: each setting that decides incidents gets a
// knob in the default search of a strategy that has it, with its values
// around the strategy's own, and none in that of a strategy without it;
// every such search is valid and within DefaultSearch's 192 candidates.
func TestDefaultSearchForKnobs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(st *Strategy)
		paths map[string][]string // knob: values (nil: any)
		not   []string            // knobs it must not have
	}{
		{"attempt_timeout", func(st *Strategy) { st.AttemptTimeout = Duration(2e9) },
			map[string][]string{"attempt_timeout": {`"1s"`, `"2s"`, `"4s"`}}, nil},
		// Half of 1ns is 0: no time-out at all, which is not valid.
		{"attempt_timeout of 1ns", func(st *Strategy) { st.AttemptTimeout = Duration(1) },
			map[string][]string{"attempt_timeout": {`"1ns"`, `"2ns"`}}, nil},
		{"deadline", func(st *Strategy) { st.Deadline = Duration(5e9) },
			map[string][]string{"deadline": {`"2.5s"`, `"5s"`, `"10s"`}}, nil},
		{"deadline above min_attempt_time", func(st *Strategy) { st.Deadline, st.MinAttemptTime = Duration(4e9), Duration(3e9) },
			map[string][]string{"deadline": {`"4s"`, `"8s"`}}, nil},
		{"consecutive breaker", func(st *Strategy) {
			st.Breaker = &Breaker{Kind: BreakerConsecutive, Failures: 10, Break: Duration(3e10)}
		}, map[string][]string{"breaker.failures": {`5`, `10`, `20`}, "breaker.placement": {`"inside"`, `"outside"`}}, []string{"breaker.ratio"}},
		{"ratio breaker", func(st *Strategy) {
			st.Breaker = &Breaker{Kind: BreakerRatio, Ratio: 0.5, MinThroughput: 10, Window: Duration(2e9), Break: Duration(2e9)}
		}, map[string][]string{"breaker.ratio": {`0.25`, `0.5`, `0.75`}, "breaker.placement": nil}, []string{"breaker.failures"}},
		{"k of n breaker", func(st *Strategy) {
			st.Breaker = &Breaker{Kind: BreakerRatio, Failures: 8, WindowCalls: 10, MinThroughput: 10, Break: Duration(2e9)}
		}, map[string][]string{"breaker.failures": {`4`, `8`, `10`}}, []string{"breaker.ratio"}},
		{"ratio budget", func(st *Strategy) {
			st.Budget = &Budget{Kind: BudgetRatio, Ratio: 0.1, Window: Duration(6e10), MinPerSecond: 1}
		}, map[string][]string{"budget": {`null`,
			`{"kind":"ratio","ratio":0.1,"window":"1m0s","min_per_second":1}`,
			`{"kind":"token_bucket","max_tokens":10,"token_ratio":0.1}`,
			`{"kind":"ratio","ratio":0.05,"window":"1m0s","min_per_second":1}`,
			`{"kind":"ratio","ratio":0.2,"window":"1m0s","min_per_second":1}`,
			`{"kind":"ratio","ratio":0.1,"window":"30s","min_per_second":1}`,
			`{"kind":"ratio","ratio":0.1,"window":"2m0s","min_per_second":1}`,
			`{"kind":"ratio","ratio":0.1,"window":"1m0s"}`,
			`{"kind":"ratio","ratio":0.1,"window":"1m0s","min_per_second":2}`}}, nil},
		{"token bucket", func(st *Strategy) {
			st.Budget = &Budget{Kind: BudgetTokenBucket, MaxTokens: 10, TokenRatio: 0.1}
		}, map[string][]string{"budget": {`null`,
			`{"kind":"token_bucket","max_tokens":10,"token_ratio":0.1}`,
			`{"kind":"ratio","ratio":0.1,"window":"1s"}`,
			`{"kind":"token_bucket","max_tokens":10,"token_ratio":0.05}`,
			`{"kind":"token_bucket","max_tokens":10,"token_ratio":0.2}`}}, nil},
		{"hedging", func(st *Strategy) {
			st.Backoff, st.Jitter = Backoff{}, Jitter{}
			st.Hedging = &Hedging{Delay: Duration(5e7)}
		}, map[string][]string{"hedging.delay": {`"25ms"`, `"50ms"`, `"100ms"`}}, []string{"backoff", "jitter", "hedging.delay_percentile"}},
		{"hedging at a percentile", func(st *Strategy) {
			st.Backoff, st.Jitter = Backoff{}, Jitter{}
			st.Hedging = &Hedging{Delay: Duration(5e7), DelayPercentile: 95}
		}, map[string][]string{"hedging.delay_percentile": {`90`, `95`, `97.5`}}, []string{"backoff", "jitter", "hedging.delay"}},
		// Twice the share of 50 is every call: the lower one is half of 50.
		{"hedging at the median", func(st *Strategy) {
			st.Backoff, st.Jitter = Backoff{}, Jitter{}
			st.Hedging = &Hedging{Delay: Duration(5e7), DelayPercentile: 50}
		}, map[string][]string{"hedging.delay_percentile": {`25`, `50`, `75`}}, []string{"backoff", "jitter", "hedging.delay"}},
		{"hedging at 60", func(st *Strategy) {
			st.Backoff, st.Jitter = Backoff{}, Jitter{}
			st.Hedging = &Hedging{Delay: Duration(5e7), DelayPercentile: 60}
		}, map[string][]string{"hedging.delay_percentile": {`20`, `60`, `80`}}, []string{"backoff", "jitter", "hedging.delay"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := plainStrategy()
			tc.set(&st)
			sc := defaultSearchScenario(t, st)
			s := sc.Search
			for path, want := range tc.paths {
				got, ok := knobOf(s, path)
				if !ok {
					t.Errorf("no knob %q: %s", path, mustJSON(t, s.Knobs))
				} else if want != nil && !slices.Equal(got, want) {
					t.Errorf("%s: %v, want %v", path, got, want)
				}
			}
			for _, path := range tc.not {
				if _, ok := knobOf(s, path); ok {
					t.Errorf("knob %q, which the strategy gives no meaning", path)
				}
			}
			hedged := st.Hedging != nil
			if got := slices.Contains(s.Objectives, latencyObjective); got != hedged {
				t.Errorf("objectives %v: latency objective %v, want %v", s.Objectives, got, hedged)
			}
			if n := combinations(s); n > 192 {
				t.Errorf("%d candidates, more than DefaultSearch's 192", n)
			}
			if err := sc.Validate(); err != nil {
				t.Errorf("not valid: %v", err)
			}
			// Without the setting, none of its knobs.
			plain := defaultSearchScenario(t, plainStrategy()).Search
			for path := range tc.paths {
				got, ok := knobOf(plain, path)
				if path == "budget" {
					// Every strategy's search asks about a budget: one
					// without gets DefaultSearch's three.
					if want, _ := knobOf(DefaultSearch("C"), "budget"); !slices.Equal(got, want) {
						t.Errorf("the plain strategy's budget knob %v, want DefaultSearch's %v", got, want)
					}
				} else if ok {
					t.Errorf("the plain strategy's search has knob %q", path)
				}
			}
			if slices.Contains(plain.Objectives, latencyObjective) {
				t.Errorf("the plain strategy's search has a latency objective")
			}
		})
	}
}

// TestDefaultSearchForEverything: a strategy with a timeout, a deadline,
// a breaker and a budget of its own still gets at most 192 candidates,
// with a knob on each, traded for DefaultSearch's less telling values.
func TestDefaultSearchForEverything(t *testing.T) {
	st := plainStrategy()
	st.AttemptTimeout, st.Deadline = Duration(2e9), Duration(1e10)
	st.Breaker = &Breaker{Kind: BreakerConsecutive, Failures: 10, Break: Duration(3e10)}
	st.Budget = &Budget{Kind: BudgetRatio, Ratio: 0.1, Window: Duration(6e10), MinPerSecond: 1}
	sc := defaultSearchScenario(t, st)
	n := combinations(sc.Search)
	if n > 192 || n < 50 {
		t.Errorf("%d candidates, want 50..192", n)
	}
	for _, path := range []string{"max_attempts", "attempt_timeout", "deadline", "breaker.failures"} {
		if _, ok := knobOf(sc.Search, path); !ok {
			t.Errorf("no knob %q: %s", path, mustJSON(t, sc.Search.Knobs))
		}
	}
	if err := sc.Validate(); err != nil {
		t.Error(err)
	}
}

// TestDefaultSearchForBuiltins: the default search of every strategy of
// every built-in is valid and gives at most 192 candidates.
func TestDefaultSearchForBuiltins(t *testing.T) {
	files, _ := filepath.Glob("../scenarios/catalog/*.json")
	if len(files) < 20 {
		t.Fatalf("%d built-ins", len(files))
	}
	for _, f := range files {
		slug := strings.TrimSuffix(filepath.Base(f), ".json")
		sc := builtinWithPresets(t, slug)
		sc.Sweep = nil
		for _, st := range sc.Strategies {
			sc.Search = DefaultSearchFor(sc, st.Name)
			if n := combinations(sc.Search); n > 192 {
				t.Errorf("%s/%s: %d candidates", slug, st.Name, n)
			}
			if err := sc.Validate(); err != nil {
				t.Errorf("%s/%s: %v", slug, st.Name, err)
			}
		}
	}
}

// TestDefaultSearchHedgedBuiltin: the default search of hedged-requests'
// hedge at 50 ms judges latency and varies the delay, and its
// recommendation says which delay.
func TestDefaultSearchHedgedBuiltin(t *testing.T) {
	sc := builtinWithPresets(t, "hedged-requests")
	sc.Sweep = nil
	sc.Runs = 1
	name := "hedge at 50 ms"
	if i := slices.IndexFunc(sc.Strategies, func(st Strategy) bool { return st.Name == name }); i < 0 || sc.Strategies[i].Hedging == nil {
		t.Fatalf("no hedged strategy %q", name)
	}
	sc.Search = DefaultSearchFor(sc, name)
	if !slices.Contains(sc.Search.Objectives, latencyObjective) {
		t.Errorf("objectives %v: no latency objective", sc.Search.Objectives)
	}
	if got, _ := knobOf(sc.Search, "hedging.delay"); len(got) < 3 {
		t.Fatalf("hedging.delay %v: not varied", got)
	}
	res := runSearch(t, sc, Options{}).Search
	if res.Recommendation == nil {
		t.Fatalf("no recommendation: %s", res.Note)
	}
	if d, ok := res.Recommendation.Settings["hedging.delay"]; !ok || !strings.Contains(res.Recommendation.Reason, "hedging.delay "+compactJSON(d)) {
		t.Errorf("the reason does not name the delay %s: %s", d, res.Recommendation.Reason)
	}
	if _, ok := res.Recommendation.Metrics.Metric("latency_p99_ms"); !ok {
		t.Errorf("no latency_p99_ms in the recommendation's metrics")
	}
}

// TestDefaultSearchKeepsABackoffForTheJitter: traded down to 192
// candidates, the default search of a strategy with a backoff of its own
// drops the backoff knob (the strategy keeps its own) and varies the
// jitter; that of a strategy without one, absent or of kind none, keeps
// two backoffs to choose from, since a jitter needs a backoff to spread,
// and drops the jitter knob instead.
func TestDefaultSearchKeepsABackoffForTheJitter(t *testing.T) {
	for _, tc := range []struct {
		backoff Backoff
		knob    string // the knob kept of backoff and jitter
	}{
		{Backoff{}, "backoff"},
		{Backoff{Kind: BackoffNone}, "backoff"},
		{Backoff{Kind: BackoffConstant, Base: Duration(1e8)}, "jitter"},
	} {
		t.Run(cmp.Or(string(tc.backoff.Kind), "absent"), func(t *testing.T) {
			st := plainStrategy()
			st.Backoff, st.Jitter = tc.backoff, Jitter{}
			st.AttemptTimeout, st.Deadline = Duration(2e9), Duration(1e10)
			st.Breaker = &Breaker{Kind: BreakerConsecutive, Failures: 10, Break: Duration(3e10)}
			st.Budget = &Budget{Kind: BudgetRatio, Ratio: 0.1, Window: Duration(6e10), MinPerSecond: 1}
			sc := defaultSearchScenario(t, st)
			other := map[string]string{"backoff": "jitter", "jitter": "backoff"}[tc.knob]
			if got, ok := knobOf(sc.Search, tc.knob); !ok || len(got) != 2 {
				t.Errorf("knob %q: %v (%v); want two values: %s", tc.knob, got, ok, mustJSON(t, sc.Search.Knobs))
			}
			if _, ok := knobOf(sc.Search, other); ok {
				t.Errorf("knob %q, traded away for the 192: %s", other, mustJSON(t, sc.Search.Knobs))
			}
			if n := combinations(sc.Search); n > 192 {
				t.Errorf("%d candidates, more than 192", n)
			}
			if err := sc.Validate(); err != nil {
				t.Errorf("not valid: %v", err)
			}
		})
	}
}
