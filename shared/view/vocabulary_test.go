package view

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/shared/engine"
)

// A vocabularyEntry says where a list of engine.Kinds() is put in a
// scenario (to describe a scenario of each kind) and whether the form has
// a field for it, or why not.
type vocabularyEntry struct {
	// set puts kind in sc where the list's kind goes, with the fields
	// its words need; nil with noWords.
	set func(sc *engine.Scenario, kind string)
	// noWords is why Describe says nothing of this list's kinds.
	noWords string
	// namedOnly are the kinds described by their name alone, as a kind
	// Describe does not know would be ("full jitter").
	namedOnly []string
	// noField is why the form has no field of this list (edited in the
	// JSON only).
	noField string
}

const ms = engine.Duration(time.Millisecond)

// vocabulary is every list of engine.Vocabulary, by its Go field name.
var vocabulary = map[string]vocabularyEntry{
	"Arrivals": {set: func(sc *engine.Scenario, k string) { sc.Workload.Arrival = engine.ArrivalKind(k) }},
	"ServiceTimes": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.ServiceTime = engine.Distribution{Kind: engine.ServiceTimeKind(k), Mean: 10 * ms, P50: 10 * ms, P99: 50 * ms}
	}},
	"Delays": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.Network = &engine.Network{Request: engine.Delay{Kind: engine.DelayKind(k), Mean: 10 * ms, Stddev: 2 * ms, P50: 10 * ms, P99: 50 * ms}}
	}},
	"Phases": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.Phases = []engine.Phase{{Kind: engine.PhaseKind(k), From: 1000 * ms, To: 2000 * ms, Workers: 2, Rate: 0.5, Factor: 3}}
	}},
	"Loads": {set: func(sc *engine.Scenario, k string) {
		sc.Workload.Load = []engine.LoadPhase{{Kind: engine.LoadKind(k), From: 1000 * ms, To: 2000 * ms, Factor: 2, Amplitude: 0.5, Period: 10000 * ms, Rate: 5, Operations: 100}}
	}},
	"LatencyLaws": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.LoadLatency = &engine.LoadLatency{Law: engine.LatencyLaw(k), Slope: 1, Knee: 0.5, Power: 2, Sigma: 0.1, Kappa: 0.01}
	}},
	"LoadMeasures": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.LoadLatency = &engine.LoadLatency{Law: engine.LawLinear, Of: engine.LoadMeasure(k), Slope: 1}
	}},
	"Backoffs": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].Backoff = engine.Backoff{Kind: engine.BackoffKind(k), Base: 100 * ms}
	}},
	"Jitters": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].Jitter = engine.Jitter{Kind: engine.JitterKind(k), Fraction: 0.3, Amount: 50 * ms}
	}, namedOnly: []string{"full", "equal", "decorrelated"}},
	"Budgets": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].Budget = &engine.Budget{Kind: engine.BudgetKind(k), MaxTokens: 10, TokenRatio: 0.1, Ratio: 0.1, MinConcurrency: 2}
	}},
	"BudgetCharges": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].Budget = &engine.Budget{Kind: engine.BudgetTokenBucket, Charge: engine.BudgetCharge(k), MaxTokens: 10, TokenRatio: 0.1}
	}},
	"BudgetShares": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].Budget = &engine.Budget{Kind: engine.BudgetConcurrency, ShareOf: engine.BudgetShare(k), Ratio: 0.1, MinConcurrency: 2}
	}, noField: "a concurrency budget's share_of is edited in the JSON"},
	"Breakers": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].Breaker = &engine.Breaker{Kind: engine.BreakerKind(k), Failures: 5, Ratio: 0.5, MinThroughput: 10, Break: 5000 * ms}
	}},
	"Placements": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].Breaker = &engine.Breaker{Kind: engine.BreakerConsecutive, Placement: engine.Placement(k), Failures: 5, Break: 5000 * ms}
	}, noField: "a breaker's placement is edited in the JSON"},
	"BreakEnds":          {noWords: "the words of a breaker are when it opens and for how long; how it ends is in the JSON"},
	"HalfOpenDecisions":  {noWords: "the words of a breaker are when it opens and for how long; its half-open state is in the JSON"},
	"WindowBucketings":   {noWords: "the words of a breaker are when it opens and for how long; how its window counts is in the JSON", noField: "edited in the JSON"},
	"HedgeAfterFailures": {noWords: "the words of hedging say a failure sends the next copy at once, send's behaviour; wait is in the JSON", noField: "edited in the JSON"},
	"RetryAfterModes":    {noWords: "the words say a policy honours Retry-After, not how", noField: "edited in the JSON"},
	"Scopes":             {noWords: "the words of a budget or breaker do not say whose calls it counts"},
	"Classes":            {noWords: "Describe does not describe a workload's plan of calls"},
	"ShedMeasures":       {noWords: "Describe does not describe a dependency's shedding"},
	"ScriptThens": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.Script = &engine.Script{Answers: []engine.Answer{{Status: 503}}, Then: engine.ScriptThen(k)}
	}, noField: "a script is edited in the JSON"},
	"QueueDisciplines": {set: func(sc *engine.Scenario, k string) { sc.Dependency.QueueDiscipline = engine.QueueDiscipline(k) }},
	"RateLimits": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].RateLimit = &engine.RateLimit{Kind: engine.RateLimitKind(k), LimitForPeriod: 10, RefreshPeriod: 1000 * ms}
	}},
	"Balancers": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.Backends = &engine.Backends{Count: 3, Balancer: engine.BalancerKind(k)}
	}},
	"RetryHostPredicates": {set: func(sc *engine.Scenario, k string) {
		sc.Strategies[0].RetryHostPredicate = engine.RetryHostPredicate(k)
	}},
	"AutoscaleMetrics": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.Autoscale = &engine.Autoscale{Metric: engine.AutoscaleMetric(k), Target: 0.5, Period: 15000 * ms, Min: 1, Max: 10}
	}},
	"KeyLaws": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.Cache = &engine.Cache{Keys: engine.KeySpace{Law: engine.KeyLaw(k), Count: 100, Exponent: 0.8}, Capacity: 10}
	}},
	"CacheFills": {set: func(sc *engine.Scenario, k string) {
		sc.Dependency.Cache = &engine.Cache{Keys: engine.KeySpace{Law: engine.KeysUniform, Count: 100}, Capacity: 10, Fill: engine.CacheFill(k)}
	}},
}

// TestEveryKindHasWordsAndAField walks every list of engine.Kinds(): the
// test knows it (a list added to the vocabulary fails here until it is
// in vocabulary above); a scenario with each kind is described in words
// of its own (no two kinds of a list alike, and at most one, the
// default, as a scenario without the kind, and none as a kind Describe
// does not know, but those namedOnly), unless noWords says why not;
// and the form has a field of the list's type, unless noField says why
// not. A kind added to a list whose words fall to another kind's case
// fails here.
func TestEveryKindHasWordsAndAField(t *testing.T) {
	types := map[string]bool{}
	for _, p := range formParts() {
		for _, f := range p.fields {
			types[f.Type] = true
		}
	}
	words := func(set func(*engine.Scenario, string), k string) string {
		sc := &engine.Scenario{Version: 1, Workload: engine.Workload{Clients: 2, Rate: 10},
			Dependency: engine.Dependency{Workers: 2, ServiceTime: engine.Distribution{Kind: engine.ServiceConstant, Mean: 10 * ms}},
			Strategies: []engine.Strategy{{Name: "s", Policy: engine.Policy{MaxAttempts: 3}}}}
		set(sc, k)
		d := Describe(sc)
		all := append(append(d.Workload, d.Dependency...), d.Timeline...)
		for _, s := range d.Strategies {
			all = append(all, s.Policy...)
		}
		return strings.Join(all, "; ")
	}
	v := reflect.ValueOf(engine.Kinds())
	known := map[string]bool{}
	for i := range v.NumField() {
		sf, f := v.Type().Field(i), v.Field(i)
		if f.Kind() != reflect.Slice {
			continue
		}
		name, jsonName := sf.Name, strings.Split(sf.Tag.Get("json"), ",")[0]
		known[name] = true
		e, ok := vocabulary[name]
		if !ok {
			t.Errorf("engine.Vocabulary.%s: this test does not know the list (add it to vocabulary, with where its kind goes)", name)
			continue
		}
		if hasField := types[jsonName]; hasField == (e.noField != "") {
			t.Errorf("%s: the form has a field of type %q: %v; noField says %q", name, jsonName, hasField, e.noField)
		}
		if (e.set == nil) == (e.noWords == "") {
			t.Errorf("%s: give it either set (its words are tested) or noWords (why it has none)", name)
			continue
		}
		if e.set == nil {
			continue
		}
		none, unknown := words(e.set, ""), words(e.set, "no-such-kind")
		said := map[string]string{}
		asNone := []string{}
		for j := range f.Len() {
			k := f.Index(j).String()
			w := words(e.set, k)
			if other, ok := said[w]; ok {
				t.Errorf("%s: the kinds %q and %q are described alike: %q", name, other, k, w)
			}
			said[w] = k
			if w == none {
				asNone = append(asNone, k)
			} else if w == strings.ReplaceAll(unknown, "no-such-kind", k) && !slices.Contains(e.namedOnly, k) {
				t.Errorf("%s: the kind %q is described as a kind Describe does not know: %q", name, k, w)
			}
		}
		if len(asNone) > 1 {
			t.Errorf("%s: the kinds %q are described as no kind is", name, asNone)
		}
	}
	for name := range vocabulary {
		if !known[name] {
			t.Errorf("vocabulary names %s, not a list of engine.Vocabulary", name)
		}
	}
}
