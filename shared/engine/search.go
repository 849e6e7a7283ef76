package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Bounds on a search.
const (
	// DefaultSearchBudget is a search's budget when it gives none: the
	// most candidates (settings to try) its knobs may give.
	DefaultSearchBudget = 256
	// MaxSearchCandidates is the highest budget a search may give.
	MaxSearchCandidates = 1024
	MaxSearchKnobs      = 8  // knobs of a search
	MaxKnobValues       = 32 // values of a knob
	MaxObjectives       = 4  // objectives of a search
	MaxConstraints      = 8  // constraints of a search
	// MaxSearchVariants bounds search.across: every variant runs every
	// candidate again, so 8 variants make a search up to 8 times as long
	// (and each variant reads the scenario again: variants × its size is
	// bounded by MaxSweepBytes, as a sweep's values are).
	MaxSearchVariants = 8
	// MaxSearchBytes bounds candidates × (the strategy's canonical size
	// plus its knobs' longest values): checking, estimating and running a
	// search read the strategy again for every candidate.
	MaxSearchBytes = 4 << 20
)

// TailSeeds is how many seeds a result needs before its ranges are
// compared by their 5th to 95th percentiles rather than their lowest and
// highest values (as the view's table marks and verdicts compare them);
// from as many, a search's frontier points carry their quantiles.
const TailSeeds = 20

// A Search looks for the settings of one strategy that serve the
// objectives best within the constraints. It starts from Strategy (a
// strategy's name) and tries every combination of the knobs' values,
// each a candidate; Run evaluates them by successive halving and reports
// their Pareto frontier and a recommendation (see SearchResult).
// Budget bounds the candidates: the product of the knobs' value counts
// may be at most Budget (DefaultSearchBudget when 0; MaxSearchCandidates
// at most), and candidates × the strategy's size at most MaxSearchBytes.
//
// Across, when given, asks for settings robust to several versions of the
// scenario's fault: every candidate runs on every variant, on the same
// seeds, and is judged by its worst case over them (see SearchResult).
// Without it the candidates run on the scenario as written.
//
// Within, a label, names the Library whose limits the knobs keep to
// (DefaultSearchFor writes it for a strategy based on a library's
// preset): the view and the command line say so, with the limits.
type Search struct {
	Strategy    string       `json:"strategy"`
	Knobs       []Knob       `json:"knobs"`
	Objectives  []Objective  `json:"objectives"`
	Constraints []Constraint `json:"constraints,omitempty"`
	Budget      int          `json:"budget,omitempty"`
	Across      []Variant    `json:"across,omitempty"`
	Within      string       `json:"within,omitempty"`
}

// A Variant is a version of the scenario a search's candidates run on:
// the scenario with Value set at Path, as a sweep sets one of its values
// (such as "dependency.phases" and a list of phases, or
// "dependency.workers" and 5); a null or missing Value leaves the field
// out, and a variant without a Path is the scenario as written. A path
// may change the workload, the dependencies and the report, not the
// strategies (knobs vary those), the seeds, the labels, the sweep or the
// search. Name, unique among the variants, labels it in the result.
// A search has 1..MaxSearchVariants variants.
type Variant struct {
	Name  string          `json:"name"`
	Path  string          `json:"path,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// JudgedMetrics names the metrics the search judges candidates on: its
// objectives', then its constraints' not already named.
func (s *Search) JudgedMetrics() []string {
	var names []string
	for _, o := range s.Objectives {
		names = append(names, o.Metric)
	}
	for _, c := range s.Constraints {
		if !slices.Contains(names, c.Metric) {
			names = append(names, c.Metric)
		}
	}
	return names
}

// A Knob is a setting a search varies: Path, relative to the strategy
// (such as "max_attempts", "backoff.base", "jitter.kind", "budget.ratio",
// "layers[0].max_attempts"), takes each of Values in turn, set as a
// sweep sets its value: a missing object is created, and null leaves the
// field out (its default, or no budget, no breaker).
//
// A layered strategy has levels: level 0 is its own policy (the
// outermost), level i its layers[i-1]. A path "levels[*].F" sets the
// policy field F (such as max_attempts or backoff.base) at every level,
// each to the same value; "levels[i].F" at level i only (levels[0].F is
// F, levels[2].F is layers[1].F). The path RetryLevel ("retry_level")
// says which level retries: its values are RetryLevelEvery ("every":
// each level as the strategy and the other knobs set it),
// RetryLevelNone ("none": no level) or a level number; every other level
// then makes one attempt (max_attempts 1, and no hedging). It is set
// after every other knob, so it overrides their max_attempts at the
// levels it stops.
//
// A path is checked against the fields of a strategy (labels such as
// preset and based_on are not settings; a level's path against a
// policy's fields, and its level against the strategy's), and each value
// is given once; two knobs may not set the same field (levels[*].backoff
// and layers[0].backoff). A knob on part of an object the strategy lacks
// must, with the other knobs, make a valid object; else vary the whole
// object. A knob on an object is set before the knobs on its fields
// (whichever way they name the level), which override its values'
// fields, so its values must be objects (or null).
type Knob struct {
	Path   string            `json:"path"`
	Values []json.RawMessage `json:"values"`
}

// The retry_level knob: its path, and its values other than a level.
const (
	RetryLevel      = "retry_level"
	RetryLevelEvery = "every" // every level retries as set
	RetryLevelNone  = "none"  // no level retries
)

// A Goal is which way an objective improves.
type Goal string

// Goals.
const (
	GoalMax Goal = "max"
	GoalMin Goal = "min"
)

// Goals lists the goals of an objective.
var Goals = []Goal{GoalMax, GoalMin}

// An Objective is a metric (a JSON name of Metrics, such as
// "affected_success_rate" or "peak_per_100ms") to maximise or minimise,
// by its mean over seeds. The first objective is the one a
// recommendation is chosen by.
type Objective struct {
	Metric string `json:"metric"`
	Goal   Goal   `json:"goal"`
}

// An Op compares a metric with a constraint's bound.
type Op string

// Ops.
const (
	OpAtMost  Op = "<="
	OpAtLeast Op = ">="
)

// Ops lists the comparisons of a constraint.
var Ops = []Op{OpAtMost, OpAtLeast}

// A Constraint bounds a metric's mean over seeds: Metric Op Value, such
// as peak_per_100ms <= 60.
type Constraint struct {
	Metric string  `json:"metric"`
	Op     Op      `json:"op"`
	Value  float64 `json:"value"`
}

// Meets reports whether x satisfies the constraint.
func (c *Constraint) Meets(x float64) bool {
	if c.Op == OpAtMost {
		return x <= c.Value
	}
	return x >= c.Value
}

func (c *Constraint) String() string {
	return fmt.Sprintf("%s %s %s", c.Metric, c.Op, strconv.FormatFloat(c.Value, 'g', -1, 64))
}

// A SearchResult is what a search found.
//
// The method ("successive_halving", after Karnin, Koren and Somekh,
// "Almost Optimal Exploration in Multi-Armed Bandits", ICML 2013, and
// Jamieson and Talwalkar, "Non-stochastic Best Arm Identification and
// Hyperparameter Optimization", AISTATS 2016): every candidate runs on
// the scenario's first seed; each round keeps the better half of the
// candidates (rounded up, and at least 8 or all of them) and doubles the
// seeds they have run on (at most the scenario's), until they have run on
// all of them. Every candidate runs on the same seeds, which give every
// one the same arrivals, service times and errors (common random
// numbers), so they are compared on the same luck.
//
// Better is constraint-aware (Deb's constrained domination, as in Deb,
// Pratap, Agarwal and Meyarivan, "A Fast and Elitist Multiobjective
// Genetic Algorithm: NSGA-II", IEEE TEC 2002), on means over the seeds
// run so far: a candidate that meets every constraint beats one that
// does not; of two that do not, the one that misses by less (its
// shortfalls relative to each bound, added up); of two that do, the one
// on an earlier Pareto front of the objectives; then the better first
// objective (the next ones on a tie), then the earlier candidate.
//
// Frontier is the candidates of the last round that meet every
// constraint and that no other such candidate dominates (as good on
// every objective and better on one), best first objective first, each
// with its means over all seeds and their spread. Recommendation is the
// first of them. When none meets the constraints, Frontier is empty,
// Recommendation is nil and Note says which came closest; when every
// frontier point scores the same on every objective (the mean over the
// seeds; the candidates they dominate, if any, do worse), nothing on the
// frontier is a choice: Recommendation is nil and Note says that no
// objective separates them. Constraints are met on average over the
// seeds, not necessarily on each; Reason and Note say so. They name
// settings and metrics as the search writes them; the view (package
// view) says the same in words.
//
// Across variants (Search.Across), a candidate runs on every variant
// with the same seeds (common random numbers across variants as well as
// candidates), and each of its objectives' and constraints' metrics
// counts by its worst case over the variants, from the means over the
// seeds: for a "max" objective the lowest of the variants' means, for a
// "min" objective the highest; for a constraint the variant where it is
// nearest to failing, so that it must hold in every variant. The halving
// ranks, the fronts and the frontier compare those worst cases, as
// Wald's maximin criterion does (Wald, "Statistical Decision Functions",
// 1950; the robust counterpart of an objective, Ben-Tal, El Ghaoui and
// Nemirovski, "Robust Optimization", 2009). Variants lists the variants'
// names; each point carries its metrics in every variant and names the
// variant that binds each one (SearchPoint).
type SearchResult struct {
	Strategy string `json:"strategy"`
	Method   string `json:"method"`
	// Evaluated is how many candidates ran (on at least one seed): all of
	// them, each a distinct strategy.
	Evaluated int `json:"evaluated"`
	// Combinations is, when some combinations of the knobs' values give
	// the same strategy as an earlier one (compared as JSON, without the
	// name), how many combinations there are; each distinct strategy then
	// runs once, as the first combination that gives it, and Same says
	// how many were left out, with an example. Both are empty when every
	// combination is a strategy of its own. (A search whose combinations
	// are all one strategy is refused before it runs.)
	Combinations int    `json:"combinations,omitempty"`
	Same         string `json:"same,omitempty"`
	// Inert lists the knobs (of more than one value) whose values made no
	// difference to any metric: every two candidates that differ in that
	// knob's value only are the same strategy or gave the same metrics on
	// every seed both ran on (the first, at least). A recommendation's
	// value of such a knob is not a choice: on these seeds the knob acts
	// on nothing (such as a level that never retries).
	Inert []string `json:"inert,omitempty"`
	// Simulations is how many candidate runs on one seed were made, and
	// Events what they processed.
	Simulations int           `json:"simulations"`
	Events      int64         `json:"events"`
	Rounds      []SearchRound `json:"rounds"`
	// Feasible is how many candidates of the last round meet every constraint.
	Feasible       int             `json:"feasible"`
	Frontier       []SearchPoint   `json:"frontier"`
	Recommendation *Recommendation `json:"recommendation,omitempty"`
	Note           string          `json:"note,omitempty"`
	// Variants names the variants every candidate ran on, in the order of
	// Search.Across; empty for a search of the scenario as written.
	Variants []string `json:"variants,omitempty"`
}

// A SearchRound is a round of successive halving: how many candidates
// ran, on how many seeds in all.
type SearchRound struct {
	Seeds      int `json:"seeds"`
	Candidates int `json:"candidates"`
}

// A SearchPoint is a candidate: the knobs' values it sets (by knob path,
// as written in the search) and its metrics' means over seeds, with each
// one's minimum and maximum.
//
// Across variants, Metrics holds for each objective's and constraint's
// metric its worst case over the variants (the mean the search judged it
// by; Spread the seeds' range in that variant), and for every other
// metric its mean in the variant that binds the first objective (Spread
// likewise). A metric that is an objective and a constraint in opposite
// directions shows its objective's worst case. Variants gives the
// objectives' and constraints' metrics in each variant, and Binding the
// variant each of them is worst in (the first of equals).
//
// From TailSeeds seeds, Quantiles gives the objectives' and constraints'
// metrics' 5th, 50th and 95th percentiles over the seeds (across
// variants, in the variant each is worst in), which a comparison of
// points then compares, as the view's marks compare strategies.
type SearchPoint struct {
	Settings  map[string]json.RawMessage `json:"settings"`
	Metrics   Metrics                    `json:"metrics"`
	Spread    map[string]MinMax          `json:"spread,omitempty"`
	Quantiles map[string]Quantiles       `json:"quantiles,omitempty"`
	Variants  []VariantMetrics           `json:"variants,omitempty"`
	Binding   map[string]string          `json:"binding,omitempty"`
}

// VariantMetrics is a search point's objectives' and constraints' metrics
// in one variant: their means over the seeds, and each one's minimum and
// maximum.
type VariantMetrics struct {
	Name    string             `json:"name"`
	Metrics map[string]float64 `json:"metrics"`
	Spread  map[string]MinMax  `json:"spread,omitempty"`
}

// A Recommendation is the candidate a search recommends, and why, in a
// sentence.
type Recommendation struct {
	SearchPoint
	Reason string `json:"reason"`
}

// DefaultSearch returns the search `retrylab search` adds to a scenario:
// from the named strategy, every combination (192) of
//
//   - max_attempts 2, 3, 4, 6;
//   - backoff exponential (doubling) from 100 ms capped at 2 s, 200 ms at
//     2 s, 500 ms at 5 s or 1 s at 10 s (the whole backoff object: the
//     strategy's own is replaced);
//   - jitter none, full, equal or decorrelated (the whole jitter object);
//   - budget none, a ratio of 10% of first attempts over 1 s (Google
//     SRE's "Handling Overload"), or a token bucket of 10 tokens refilled
//     by 0.1 per success (gRPC's retry throttling defaults);
//
// maximising affected_success_rate, then minimising peak_per_100ms,
// with no constraints.
func DefaultSearch(strategy string) *Search {
	raw := func(vs ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(vs))
		for i, v := range vs {
			out[i] = json.RawMessage(v)
		}
		return out
	}
	return &Search{
		Strategy: strategy,
		Knobs: []Knob{
			{Path: "max_attempts", Values: raw(`2`, `3`, `4`, `6`)},
			{Path: "backoff", Values: raw(
				`{"kind":"exponential","base":"100ms","max":"2s"}`,
				`{"kind":"exponential","base":"200ms","max":"2s"}`,
				`{"kind":"exponential","base":"500ms","max":"5s"}`,
				`{"kind":"exponential","base":"1s","max":"10s"}`)},
			{Path: "jitter", Values: raw(`{"kind":"none"}`, `{"kind":"full"}`, `{"kind":"equal"}`, `{"kind":"decorrelated"}`)},
			{Path: "budget", Values: raw(`null`,
				`{"kind":"ratio","ratio":0.1,"window":"1s"}`,
				`{"kind":"token_bucket","max_tokens":10,"token_ratio":0.1}`)},
		},
		Objectives: []Objective{{"affected_success_rate", GoalMax}, {"peak_per_100ms", GoalMin}},
	}
}

// DefaultSearchFor returns the default search of sc's strategy name with
// only the knobs that have a meaning for that strategy.
//
// A single-level strategy (no layers) gets DefaultSearch's knobs, and a
// knob on each setting it has that decides how an incident goes, its
// values around the strategy's own:
//
//   - attempt_timeout, when it has one: half, its own and double (a
//     timeout too short cuts slow successes and retries them, too long
//     holds a stuck attempt; doubling and halving ask which way it
//     errs, as its own value alone cannot);
//   - deadline, when it has one: half, its own and double (no shorter
//     than its min_attempt_time), which decides how many retries and
//     waits fit;
//   - the breaker's threshold, when it has one: breaker.failures (a
//     consecutive breaker, or k of window_calls) half, its own and
//     double, or breaker.ratio half, its own and halfway to 1; and
//     breaker.placement inside (each attempt) or outside (the whole
//     operation);
//   - budget, when it has one: none, its own, the other kind of
//     DefaultSearch's (a token bucket for a ratio, else the 10% ratio),
//     its own with the share of retries it allows (ratio, or a token
//     bucket's token_ratio; min_concurrency for a concurrency budget
//     without a ratio) halved and doubled, with its window halved and
//     doubled and with its reserve (min_per_second) dropped and doubled
//     (a ratio budget with those): its kind, ratio, window and reserve,
//     instead of DefaultSearch's three budgets;
//   - a hedged strategy sends its copies hedging.delay apart, without
//     backoff, so its search leaves the backoff and jitter knobs out and
//     varies hedging.delay half, its own and double (or, with a
//     percentile delay, hedging.delay_percentile at twice and half the
//     share of calls it hedges: 90, 95 and 97.5 for 95), and adds the
//     objective latency_p99_ms, minimised after the affected success
//     rate and before the peak, since hedging is judged on its tail.
//
// Those knobs multiply the candidates, so they are traded for the less
// telling values of DefaultSearch's, one step at a time until at most
// 192 are left, DefaultSearch's own count and cost bound: the equal and
// decorrelated jitters (which differ from full jitter less than none
// does), the two middle backoffs (100 ms to 2 s and 1 s to 10 s are
// kept), the token bucket or, for a strategy's own budget, the other kind
// and the window and reserve variations, 6 attempts (the costliest
// candidates), breaker.placement (the strategy's own is kept), the share
// variations of its own budget, then the budget knob (the strategy's own
// budget, or none, is kept: a strategy whose timeouts or breaker are
// varied asks first how long to wait and when to stop), then the backoff
// when the strategy has one (its own is kept; a strategy without one
// keeps the two backoffs, which its jitter knob needs; the backoff is
// what E03-B's search finds matters most, so it goes late) and last the
// jitter. The knobs left make no more than 162 candidates (3 attempts ×
// 3 values of each of timeout, deadline and breaker threshold × 2
// backoffs at most). A strategy with none of those settings gets
// DefaultSearch (192); E03-B's C, with a timeout and a deadline, 108 (3
// attempts × 2 backoffs × none or full jitter × 3 timeouts × 3
// deadlines); a strategy with a ratio budget over no window only 160 (4
// attempts × 4 backoffs × 2 jitters × 5 budgets); hedged-requests' hedge
// at 50 ms, with its timeout, 108 (2, 3, 4 or 6 copies × 3 budgets × 3 timeouts × 3
// delays).
//
// A layered strategy's levels all retry, and a knob on its own policy
// alone may act on a level that never retries (one whose attempt
// outlasts its deadline while its layers retry), so its knobs set their
// field at every level (levels[*]), and retry_level asks which level
// should retry, every other level making one attempt:
//
//   - levels[*].max_attempts 2, 3, 4 (6 at three levels is 216 calls an
//     operation; it is left out);
//   - levels[*].backoff: DefaultSearch's four exponential backoffs;
//   - levels[*].jitter none or full;
//   - levels[*].budget none or the 10% ratio over 1 s;
//   - retry_level "every", then the outermost level (0), the middle one
//     (levels/2) and the innermost, each once: every level of a strategy
//     of up to three levels.
//
// That is 48 combinations per retry_level value: 144 for two levels, 192
// for three or more, no more than DefaultSearch's 192, for the same cost
// bound; the equal and decorrelated jitters and the token bucket, which
// DefaultSearch compares among themselves, make room for the question a
// layered strategy asks first, which level retries. That leaves no room
// for its timeouts, breakers and budgets' own values (three values of
// one would triple it): a layered search does not vary them. A hedged
// level (hedging at any level) leaves the backoff and jitter knobs out,
// as for one level (a level retry_level makes attempt once drops its
// hedging).
//
// A strategy of one level without hedging based on a library's preset
// (based_on, as an import or a preset records it; see Libraries) is
// searched within that library's limits: its knobs are the Library's,
// every value one its format writes exactly, and Within names it.
func DefaultSearchFor(sc *Scenario, name string) *Search {
	s := DefaultSearch(name)
	i := slices.IndexFunc(sc.Strategies, func(st Strategy) bool { return st.Name == name })
	if i < 0 {
		return s
	}
	st := &sc.Strategies[i]
	if lib := libraryOf(st); lib != nil {
		s.Knobs = make([]Knob, len(lib.Knobs))
		for k, kn := range lib.Knobs {
			s.Knobs[k] = Knob{Path: kn.Path, Values: slices.Clone(kn.Values)}
		}
		s.Within = lib.Name
		return s
	}
	if len(st.Layers) == 0 {
		knobs, hedged := singleLevelKnobs(st)
		s.Knobs = knobs
		if hedged {
			s.Objectives = slices.Insert(s.Objectives, 1, latencyObjective)
		}
		return s
	}
	s.Knobs = layeredKnobs(1 + len(st.Layers))
	if st.Hedging != nil || slices.ContainsFunc(st.Layers, func(p Policy) bool { return p.Hedging != nil }) {
		s.Knobs = slices.DeleteFunc(s.Knobs, func(k Knob) bool {
			return slices.Contains([]string{"levels[*].backoff", "levels[*].jitter"}, k.Path)
		})
	}
	return s
}

// layeredKnobs returns the knobs of the default search of a strategy of
// n levels (n > 1): see DefaultSearchFor.
func layeredKnobs(n int) []Knob {
	d := DefaultSearch("").Knobs
	levels := []json.RawMessage{json.RawMessage(`"every"`)}
	for _, l := range []int{0, n / 2, n - 1} {
		v := json.RawMessage(strconv.Itoa(l))
		if !slices.ContainsFunc(levels, func(x json.RawMessage) bool { return string(x) == string(v) }) {
			levels = append(levels, v)
		}
	}
	return []Knob{
		{Path: "levels[*].max_attempts", Values: d[0].Values[:3]},
		{Path: "levels[*].backoff", Values: d[1].Values},
		{Path: "levels[*].jitter", Values: d[2].Values[:2]},
		{Path: "levels[*].budget", Values: d[3].Values[:2]},
		{Path: "retry_level", Values: levels},
	}
}
