// The search's checking and running, which the engine reaches through
// EnableSearch (search.go).

package search

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// checkSearch checks a search block: its strategy, knobs, objectives,
// constraints and budget, then that each knob's values, with the other
// knobs at their first values, and then each candidate, give a valid
// strategy.
func checkSearch(v *engine.SearchCheck, sc *engine.Scenario) {
	s := sc.Search
	si := slices.IndexFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == s.Strategy })
	if si < 0 {
		names := make([]string, len(sc.Strategies))
		for i := range sc.Strategies {
			names[i] = sc.Strategies[i].Name
		}
		v.Add("search.strategy", s.Strategy, "is not the name of a strategy of the scenario; they are %s", engine.QuoteList(names))
	}
	if s.Within != "" && engine.LibraryNamed(s.Within) == nil {
		names := make([]string, len(engine.Libraries))
		for i := range engine.Libraries {
			names[i] = engine.Libraries[i].Name
		}
		v.Add("search.within", s.Within, "is not a library whose limits a search keeps to; they are %s", engine.QuoteList(names))
	}
	switch n := len(s.Knobs); {
	case n == 0:
		v.Add("search.knobs", nil, "is empty; a search varies 1..%d knobs, each a path in the strategy and its values", engine.MaxSearchKnobs)
	case n > engine.MaxSearchKnobs:
		v.Add("search.knobs", nil, "lists %d knobs; at most %d are allowed", n, engine.MaxSearchKnobs)
	}
	paths := map[string]int{}
	levels := 1 // the strategy's: its own policy and its layers
	if si >= 0 {
		levels += len(sc.Strategies[si].Layers)
	}
	for k, kn := range s.Knobs {
		p := fmt.Sprintf("search.knobs[%d]", k)
		if isLevelsPath(kn.Path) || isRetryLevelPath(kn.Path) {
			if !levelKnobPath(v, k, kn.Path, sc, si) {
				// said
			} else if j, dup := paths[kn.Path]; dup {
				v.Add(p+".path", kn.Path, "is also the path of search.knobs[%d]; a path is varied by one knob", j)
			} else {
				paths[kn.Path] = k
			}
		} else if i := strings.Index(kn.Path, "[*]"); i >= 0 {
			rest := strings.TrimPrefix(kn.Path[i+3:], ".")
			if rest == "" {
				rest = "max_attempts"
			}
			v.Add(p+".path", kn.Path, "has [*] after %q; [*] stands for every level after levels only: write %q (the strategy's own policy and each layer), or levels[i] for level i", kn.Path[:i], "levels[*]."+rest)
		} else if steps, err := engine.ParsePath(kn.Path, p+".path"); err != nil {
			for _, e := range engine.AsErrors(err) {
				v.AddError(e)
			}
		} else if !knobPath(v, k, kn.Path, steps, s.Strategy) {
			// said
		} else if j, dup := paths[kn.Path]; dup {
			v.Add(p+".path", kn.Path, "is also the path of search.knobs[%d]; a path is varied by one knob", j)
		} else {
			paths[kn.Path] = k
		}
		if n := len(kn.Values); n == 0 || n > engine.MaxKnobValues {
			v.Add(p+".values", nil, "lists %d values; give 1..%d", n, engine.MaxKnobValues)
		}
	}
	if !v.Failed() {
		levelKnobs(v, s, levels)
	}
	switch n := len(s.Objectives); {
	case n == 0:
		v.Add("search.objectives", nil, "is empty; give 1..%d objectives, each a metric and \"max\" or \"min\"", engine.MaxObjectives)
	case n > engine.MaxObjectives:
		v.Add("search.objectives", nil, "lists %d objectives; at most %d are allowed", n, engine.MaxObjectives)
	}
	metricNames := engine.MetricNames()
	seen := map[string]int{}
	for i, o := range s.Objectives {
		p := fmt.Sprintf("search.objectives[%d]", i)
		if !slices.Contains(metricNames, o.Metric) {
			v.Add(p+".metric", o.Metric, "is not a metric name (metrics: %s)", strings.Join(metricNames, ", "))
		} else if j, dup := seen[o.Metric]; dup {
			v.Add(p+".metric", o.Metric, "is also search.objectives[%d]; an objective is given once", j)
		} else {
			seen[o.Metric] = i
		}
		v.Goal(p+".goal", o.Goal)
	}
	if n := len(s.Constraints); n > engine.MaxConstraints {
		v.Add("search.constraints", nil, "lists %d constraints; at most %d are allowed", n, engine.MaxConstraints)
	}
	for i, c := range s.Constraints {
		v.Constraint(fmt.Sprintf("search.constraints[%d]", i), &c)
	}
	if s.Budget != 0 {
		v.IntRange("search.budget", s.Budget, 1, engine.MaxSearchCandidates)
	}
	across(v, sc)
	if v.Failed() {
		return
	}
	if n, counts := candidates(s); n > budget(s) {
		v.Add("search.knobs", nil, "give %s candidates (%s values, every combination); the budget allows %d (search.budget, %d by default, at most %d): give fewer values",
			engine.HumanCount(int64(n)), counts, budget(s), engine.DefaultSearchBudget, engine.MaxSearchCandidates)
		return
	}
	n, _ := candidates(s)
	raw, _ := json.Marshal(&sc.Strategies[si])
	size := len(raw)
	for _, kn := range s.Knobs {
		longest := 0
		for _, val := range kn.Values {
			longest = max(longest, len(val))
		}
		size += longest
	}
	if n*size > engine.MaxSearchBytes {
		v.Add("search.knobs", nil, "give %d candidates of a strategy of up to %d bytes; a search reads the strategy again for each candidate, and candidates × its size may be at most %d KiB: give fewer values, or shorten the strategy",
			n, size, engine.MaxSearchBytes>>10)
		return
	}
	steps := knobSteps(s, levels)
	knobValues(v, s, steps)
	if v.Failed() {
		return
	}
	// Each knob's path alone, and the objects the strategy lacks that
	// knobs set fields of; then each value with the other knobs at
	// their first values, blamed on that value only for the errors the
	// first values alone do not give; those are blamed on the first value
	// that gives them alone, or on the combination. Then (when all that
	// is valid) every combination.
	only := func(k, j int) []int {
		idx := make([]int, len(s.Knobs))
		for i := range idx {
			idx[i] = -1
		}
		idx[k] = j
		return idx
	}
	for k := range s.Knobs {
		for _, e := range candidate(v, sc, si, only(k, 0)) {
			if e.Path == fmt.Sprintf("search.knobs[%d].path", k) {
				v.AddError(e) // the path does not fit the strategy, whatever the value
			}
		}
	}
	if !v.Failed() {
		missingObjects(v, sc, si, steps)
	}
	if v.Failed() {
		return
	}
	same := func(a, b engine.FieldError) bool {
		return a.Path == b.Path && a.Value == b.Value && a.Message == b.Message
	}
	blame := func(k, j int, e engine.FieldError) {
		v.AddError(engine.FieldError{Path: fmt.Sprintf("search.knobs[%d].values[%d]", k, j), Value: e.Value,
			Message: "at " + e.Path + " " + e.Message + keptFields(s, k, si, steps[k], e.Path)})
	}
	base := candidate(v, sc, si, make([]int, len(s.Knobs)))
	for _, e := range base {
		k := -1
		for i := range s.Knobs {
			if slices.ContainsFunc(candidate(v, sc, si, only(i, 0)), func(x engine.FieldError) bool { return same(x, e) }) {
				k = i
				break
			}
		}
		if k < 0 {
			v.Add("search.knobs", nil, "give, with every knob at its first value, a strategy that is not valid: at %s %s %s", e.Path, e.Value, e.Message)
			continue
		}
		blame(k, 0, e)
	}
	for k, kn := range s.Knobs {
		for j := 1; j < len(kn.Values); j++ {
			idx := make([]int, len(s.Knobs))
			idx[k] = j
			for _, e := range candidate(v, sc, si, idx) {
				if !slices.ContainsFunc(base, func(b engine.FieldError) bool { return same(b, e) }) {
					blame(k, j, e)
				}
			}
		}
	}
	if v.Failed() {
		return
	}
	for c := range n {
		idx := indexes(s, c)
		if es := candidate(v, sc, si, idx); len(es) > 0 {
			e := es[0]
			v.Add("search.knobs", nil, "give a candidate that is not valid, %s: at %s %s %s", settingsText(s, idx), e.Path, e.Value, e.Message)
		}
	}
	if v.Failed() {
		return
	}
	// Candidates that are all the same strategy would run n times to
	// find nothing: refuse them before anything runs.
	if _, cands, _, _, err := searchStrategies(sc); err == nil && n > 1 && len(cands) == 1 {
		v.Add("search.knobs", nil, "%s", allSameText(s, n))
		return
	}
	variants(v, sc)
}

// across checks the shape of a search's variants (search.across): how
// many, their names, and that each path is one a variant may change.
func across(v *engine.SearchCheck, sc *engine.Scenario) {
	s := sc.Search
	if s.Across == nil {
		return
	}
	switch n := len(s.Across); {
	case n == 0:
		v.Add("search.across", nil, "is empty; give 1..%d variants of the scenario, each {\"name\", \"path\", \"value\"}, or leave across out to search the scenario as written", engine.MaxSearchVariants)
		return
	case n > engine.MaxSearchVariants:
		v.Add("search.across", nil, "lists %d variants; at most %d are allowed (every variant runs every candidate again)", n, engine.MaxSearchVariants)
		return
	}
	names := map[string]int{}
	for i, vr := range s.Across {
		p := fmt.Sprintf("search.across[%d]", i)
		if vr.Name == "" {
			v.Add(p+".name", nil, "is empty; every variant needs a short name, which the result uses to say where a metric is worst")
		} else if j, dup := names[vr.Name]; dup {
			v.Add(p+".name", vr.Name, "is also the name of search.across[%d]; names must be unique", j)
		} else {
			v.Text(p+".name", vr.Name, 100)
			names[vr.Name] = i
		}
		if vr.Path == "" {
			if len(vr.Value) > 0 {
				v.Add(p+".value", string(compactValue(vr.Value)), "is given without a path; give the path it is set at, such as \"dependency.phases\" (a variant without path and value is the scenario as written)")
			}
			continue
		}
		if err := variantPath(vr.Path, p+".path"); err != nil {
			for _, e := range engine.AsErrors(err) {
				v.AddError(e)
			}
		}
	}
	if v.Failed() {
		return
	}
	// Checking, estimating and running the variants read the whole
	// scenario again for each one, as a sweep's values do.
	if raw, err := json.Marshal(sc); err == nil && len(raw)*len(s.Across) > engine.MaxSweepBytes {
		v.Add("search.across", nil, "lists %d variants for a scenario of %d bytes; each variant reads the scenario again, and variants × its size may be at most %d KiB: give fewer variants, or shorten the scenario",
			len(s.Across), len(raw), engine.MaxSweepBytes>>10)
	}
}

// variantFields are the fields of a scenario a variant may change.
var variantFields = []string{"workload", "dependency", "dependencies", "report"}

// variantPath checks a variant's path, written at field: it must parse
// and start with a field a variant may change.
func variantPath(path, field string) error {
	steps, err := engine.ParsePath(path, field)
	if err != nil {
		return err
	}
	bad := func(why string) error {
		return engine.Errors{{Path: field, Value: strconv.Quote(path), Message: why}}
	}
	switch k := steps[0].Key; {
	case slices.Contains(variantFields, k):
		return nil
	case k == "strategies":
		return bad("changes the strategies; a variant changes what the candidates meet (the workload, the dependencies, the report), and the search's knobs vary the strategy")
	case k == "seed" || k == "runs" || k == "seeds":
		return bad("changes the seeds; every variant runs the candidates on the scenario's seeds, so that they meet the same luck in each")
	case k == "name" || k == "description":
		return bad("changes a label, which changes nothing in a simulation; a variant's path starts with " + strings.Join(variantFields, ", "))
	case k == "version" || k == "sweep" || k == "search":
		return bad("a variant cannot change " + k + "; a variant's path starts with " + strings.Join(variantFields, ", "))
	}
	hint := ""
	if near := engine.NearNames(steps[0].Key, variantFields); len(near) > 0 {
		hint = fmt.Sprintf("; did you mean %q?", near[0])
	}
	return bad(fmt.Sprintf("is not a part of the scenario a variant may change%s A variant's path starts with %s (such as \"dependency.phases\" or \"dependency.workers\")",
		cmp.Or(hint, "."), strings.Join(variantFields, ", ")))
}

// variants checks that each variant gives a valid scenario: errors at
// the path when it does not lead into the scenario, at the value
// otherwise (naming where in the scenario it is wrong).
func variants(v *engine.SearchCheck, sc *engine.Scenario) {
	for i := range sc.Search.Across {
		p := fmt.Sprintf("search.across[%d]", i)
		sub, err := variant(sc, i)
		if err != nil {
			for _, e := range engine.AsErrors(err) {
				if e.Path == p+".path" {
					v.AddError(e)
					continue
				}
				if path := sc.Search.Across[i].Path; e.Path == path && strings.HasPrefix(e.Message, "is not a known field") {
					// The path itself leads nowhere, whatever the value.
					v.Add(p+".path", path, "is not a path of the scenario: at %s %s", e.Path, e.Message)
					continue
				}
				at := ""
				if e.Path != "" {
					at = "at " + e.Path + " "
				}
				v.AddError(engine.FieldError{Path: p + ".value", Value: e.Value, Message: at + e.Message})
			}
			continue
		}
		v.Variant(p+".value", sub)
	}
}

// variant returns variant i of the search's scenario (search.across[i]),
// without the sweep and the search: the scenario as written when the
// variant has no path.
func variant(sc *engine.Scenario, i int) (*engine.Scenario, error) {
	vr := sc.Search.Across[i]
	if vr.Path == "" {
		sub := *sc
		sub.Search, sub.Sweep = nil, nil
		return &sub, nil
	}
	field := fmt.Sprintf("search.across[%d].path", i)
	if err := variantPath(vr.Path, field); err != nil {
		return nil, err
	}
	return sc.Edited(vr.Path, vr.Value, field, "a variant")
}

// searchVariants returns the scenarios the search's candidates run on:
// each variant's, or the scenario itself without variants.
func searchVariants(sc *engine.Scenario) ([]*engine.Scenario, error) {
	if len(sc.Search.Across) == 0 {
		return []*engine.Scenario{sc}, nil
	}
	subs := make([]*engine.Scenario, len(sc.Search.Across))
	for i := range subs {
		var err error
		if subs[i], err = variant(sc, i); err != nil {
			return nil, err
		}
	}
	return subs, nil
}

// keptFields returns, when an error at errPath is in the object knob k
// sets a field of (at one of its strategy paths, read into steps), but
// not at that field, what to add to the error: the knob keeps the
// object's other fields (the strategy's, or its preset's), and a knob on
// the whole object replaces them. Otherwise "".
func keptFields(s *engine.Search, k, si int, steps [][]engine.PathStep, errPath string) string {
	path := s.Knobs[k].Path
	dot := strings.LastIndexByte(path, '.')
	if dot < 0 || strings.HasSuffix(path, "]") {
		return ""
	}
	obj := path[:dot] // as the knob names it: backoff, levels[*].backoff
	for _, st := range steps {
		if len(st) < 2 || st[len(st)-1].Key == "" {
			continue
		}
		under := fmt.Sprintf("strategies[%d].%s.", si, pathText(st[:len(st)-1]))
		if !strings.HasPrefix(errPath, under) || errPath == fmt.Sprintf("strategies[%d].%s", si, pathText(st)) {
			continue
		}
		for _, kn := range s.Knobs {
			if kn.Path == obj {
				return "" // the object is a knob of its own
			}
		}
		return fmt.Sprintf("; the knob %q keeps the strategy's other %s fields: vary the whole object instead, with a knob %q with object values", path, obj, obj)
	}
	return ""
}

// candidate returns the errors of the strategy that sets the knobs'
// values idx in strategy si, validated as strategy si of the scenario.
func candidate(v *engine.SearchCheck, sc *engine.Scenario, si int, idx []int) engine.Errors {
	st, err := knobbed(sc, si, idx)
	if err != nil {
		return engine.AsErrors(err)
	}
	return v.Strategy(si, &st)
}

// budget returns the most candidates the search may give.
func budget(s *engine.Search) int { return cmp.Or(s.Budget, engine.DefaultSearchBudget) }

// candidates returns how many candidates the knobs give (at most
// MaxSearchCandidates+1: more are not counted) and their value counts,
// as "4 × 3 × 2".
func candidates(s *engine.Search) (int, string) {
	n := 1
	counts := make([]string, len(s.Knobs))
	for k, kn := range s.Knobs {
		n = min(n*len(kn.Values), engine.MaxSearchCandidates+1)
		counts[k] = strconv.Itoa(len(kn.Values))
	}
	return n, strings.Join(counts, " × ")
}

// indexes returns the knobs' value indexes of candidate c. Candidates are
// numbered as nested loops over the knobs number them, the first knob
// outermost: the last knob's value changes from one candidate to the next.
func indexes(s *engine.Search, c int) []int {
	idx := make([]int, len(s.Knobs))
	for k := len(s.Knobs) - 1; k >= 0; k-- {
		n := len(s.Knobs[k].Values)
		idx[k] = c % n
		c /= n
	}
	return idx
}

// number returns the candidate whose knobs' value indexes are idx: the
// inverse of indexes.
func number(s *engine.Search, idx []int) int {
	c := 0
	for k, kn := range s.Knobs {
		c = c*len(kn.Values) + idx[k]
	}
	return c
}

// settings returns the knobs' values idx by path, compacted.
func settings(s *engine.Search, idx []int) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(s.Knobs))
	for k, kn := range s.Knobs {
		m[kn.Path] = compactValue(kn.Values[idx[k]])
	}
	return m
}

// settingsText writes the knobs' values idx, in the knobs' order, as
// "max_attempts 3, backoff.base "100ms"".
func settingsText(s *engine.Search, idx []int) string {
	parts := make([]string, len(s.Knobs))
	for k, kn := range s.Knobs {
		parts[k] = kn.Path + " " + string(compactValue(kn.Values[idx[k]]))
	}
	return strings.Join(parts, ", ")
}

// compactValue returns a knob's value as compact JSON; null when empty.
func compactValue(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(raw) // validates and compacts
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// knobbed returns strategy si with the search's knobs set to their values
// idx (a knob whose index is negative is left as the strategy has it), in
// knobOrder: a knob on levels[*] sets its field at every level, one on
// levels[i] at level i, and retry_level, set last, gives every level but
// the one it keeps one attempt (see Knob). Its errors name the
// strategy's paths, or the knob's path when the path does not fit the
// strategy.
func knobbed(sc *engine.Scenario, si int, idx []int) (engine.Strategy, error) {
	raw, err := json.Marshal(&sc.Strategies[si])
	if err != nil {
		return engine.Strategy{}, err
	}
	var tree any
	if err := unmarshalNumbers(raw, &tree); err != nil {
		return engine.Strategy{}, err
	}
	for _, k := range knobOrder(sc.Search) {
		kn := sc.Search.Knobs[k]
		if idx[k] < 0 {
			continue // left as the strategy has it
		}
		field := fmt.Sprintf("search.knobs[%d].path", k)
		r := kn.Values[idx[k]]
		if kn.Path == engine.RetryLevel {
			level, why := retryLevelValue(r, levelsOf(tree))
			if why != "" {
				return engine.Strategy{}, engine.Errors{{Path: fmt.Sprintf("search.knobs[%d].values[%d]", k, idx[k]), Value: string(compactValue(r)), Message: why}}
			}
			applyRetryLevel(tree, level)
			continue // last in knobOrder
		}
		paths, why := knobTargets(kn.Path, levelsOf(tree))
		if why != "" {
			return engine.Strategy{}, engine.Errors{{Path: field, Value: strconv.Quote(kn.Path), Message: why}}
		}
		for _, path := range paths {
			steps, err := engine.ParsePath(path, field)
			if err != nil {
				return engine.Strategy{}, err
			}
			// Each level gets its own copy of the value, which later
			// knobs on its fields may change.
			var val any
			if len(r) > 0 && string(r) != "null" {
				if err := unmarshalNumbers(r, &val); err != nil {
					return engine.Strategy{}, engine.Errors{{Path: fmt.Sprintf("search.knobs[%d].values[%d]", k, idx[k]), Message: "is not valid JSON"}}
				}
			}
			if err := engine.SetPath(tree, steps, val, kn.Path, field); err != nil {
				return engine.Strategy{}, err
			}
		}
	}
	st, err := engine.DecodeStrategy(fmt.Sprintf("strategies[%d]", si), tree)
	if err != nil {
		return engine.Strategy{}, err
	}
	engine.Relabel(&st)
	return st, nil
}

// searchStrategies returns the index of the search's strategy and its
// distinct candidates, in order: of the combinations of the knobs' values
// that give the same strategy (compared as JSON, without the name), the
// first only. combo gives, for each distinct candidate, the combination
// it is (its number for indexes), and same, for every
// combination, the distinct candidate that stands for it. The scenario
// is valid.
func searchStrategies(sc *engine.Scenario) (si int, cands []engine.Strategy, combo, same []int, err error) {
	s := sc.Search
	si = slices.IndexFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == s.Strategy })
	if si < 0 {
		return 0, nil, nil, nil, fmt.Errorf("engine: search.strategy %q is not a strategy of the scenario", s.Strategy)
	}
	n, _ := candidates(s)
	all := make([]engine.Strategy, n)
	for c := range n {
		st, err := knobbed(sc, si, indexes(s, c))
		if err != nil {
			return 0, nil, nil, nil, err
		}
		all[c] = st
	}
	first := sameStrategies(all)
	same = make([]int, n)
	for c := range n {
		if first[c] == c {
			st := all[c]
			st.Name = fmt.Sprintf("%s#%d", st.Name, c)
			cands = append(cands, st)
			combo = append(combo, c)
		}
		same[c] = len(cands) - 1
		if first[c] != c {
			same[c] = same[first[c]]
		}
	}
	return si, cands, combo, same, nil
}

// sameNote says, when some of the knobs' n combinations are the same
// strategy as an earlier one, how many, with the first such pair; ""
// when every combination is a strategy of its own.
func sameNote(s *engine.Search, combo, same []int) string {
	n := len(same)
	if len(combo) == n {
		return ""
	}
	for c := range n {
		if f := combo[same[c]]; f != c {
			verb := "are"
			if n-len(combo) == 1 {
				verb = "is"
			}
			return fmt.Sprintf("%d of the %d combinations of the knobs' values %s the same strategy as an earlier one (compared as JSON, without the name), such as %s, the same as %s; each of the %d distinct strategies is one candidate",
				n-len(combo), n, verb, settingsText(s, indexes(s, c)), settingsText(s, indexes(s, f)), len(combo))
		}
	}
	return ""
}

// searchScenario returns a copy of sc, without its search, whose
// strategies are the given candidates.
func searchScenario(sc *engine.Scenario, cands []engine.Strategy) *engine.Scenario {
	sub := *sc
	sub.Search, sub.Sweep = nil, nil
	sub.Strategies = cands
	return &sub
}

// halving returns the rounds of successive halving of n candidates over
// the given number of seeds.
func halving(n, seeds int) []engine.SearchRound {
	var rounds []engine.SearchRound
	s := 1
	for {
		rounds = append(rounds, engine.SearchRound{Seeds: s, Candidates: n})
		if s >= seeds {
			return rounds
		}
		s = min(2*s, seeds)
		n = max((n+1)/2, min(n, searchFloor))
	}
}

// halvingSimulations returns how many simulations the rounds make: each
// round runs its candidates on the seeds they have not run on yet.
func halvingSimulations(rounds []engine.SearchRound) int {
	total, prev := 0, 0
	for _, r := range rounds {
		total += r.Candidates * (r.Seeds - prev)
		prev = r.Seeds
	}
	return total
}

// searchEstimate returns the estimated cost of a search, in events, as a
// bound on what successive halving can run: each candidate's cost per seed
// (its estimate as a scenario of that strategy alone, with its result's
// numbers, over the seeds), and for each round as many of the costliest
// candidates as the round keeps, on the seeds the round adds. Which
// candidates survive is not known before the run; that the costliest do
// is the worst case.
//
// It is a bound, and a loose one where retry storms are: each candidate's
// estimate makes every attempt of every operation at 3 events. In a storm
// nearly every attempt is made, but most take one event (an answer
// refused at once has no time-out to fire), and a candidate's budget
// stops retries the estimate counts: runaway-cascade's default search is
// estimated at 424 million events and processes 72 million. Which
// attempts are refused at once, and what a budget lets through (its
// costs, refunds, windows and scope), are known only by running, so no
// tighter bound is sound; TestSearchEstimateBoundsBuiltins checks the
// bound on every built-in.
func searchEstimate(sc *engine.Scenario) int64 {
	_, cands, _, _, err := searchStrategies(sc)
	if err != nil || len(cands) == 0 {
		return math.MaxInt64 / 2
	}
	variants, err := searchVariants(sc)
	if err != nil {
		return math.MaxInt64 / 2
	}
	seeds := len(engine.SeedsOf(sc))
	perSeed := make([]float64, len(cands)) // on every variant
	for _, vsc := range variants {
		sub := searchScenario(vsc, nil)
		for i := range cands {
			sub.Strategies = cands[i : i+1]
			perSeed[i] += float64(engine.EstimateTuned(sub)) / float64(seeds)
		}
	}
	slices.SortFunc(perSeed, func(a, b float64) int { return cmp.Compare(b, a) })
	var total float64
	prev := 0
	for _, r := range halving(len(cands), seeds) {
		var round float64
		for _, c := range perSeed[:r.Candidates] {
			round += c
		}
		total += round * float64(r.Seeds-prev)
		prev = r.Seeds
	}
	return int64(min(math.Ceil(total), math.MaxInt64/2))
}

// searchEstimateSize returns about how many numbers a search's result
// holds: a point's per candidate, a bound; across variants, a point also
// has its objectives' and constraints' metrics, with their spread, in
// each variant.
func searchEstimateSize(sc *engine.Scenario) float64 {
	s := sc.Search
	n, _ := candidates(s)
	per := 3*80 + float64(len(s.Knobs))
	if v := len(s.Across); v > 0 {
		per += float64(v+1) * 3 * float64(len(s.Objectives)+len(s.Constraints))
	}
	return float64(n+1) * per // the recommendation repeats a point
}

// outcomes is what the search reads of its candidates' simulations,
// as engine.Candidates gives it (a test gives made-up ones): candidate
// cand's metrics on seed i of variant v, its mean and spread over the
// first seeds, and whether a metric applies in variant v.
type outcomes interface {
	Metrics(v, cand, i int) engine.Metrics
	MeanSpread(v, cand, seeds int) (engine.Metrics, map[string]engine.MinMax)
	Applies(v int, name string) bool
}

// A searchRun is a search being run: its candidates compiled as the
// strategies of one model per variant (one model without variants),
// every simulation a candidate on a seed of a variant.
type searchRun struct {
	s *engine.Search
	c *engine.Candidates
	// out is what the candidates' simulations measured: c's.
	out    outcomes
	rounds []engine.SearchRound
	n      int // candidates: distinct strategies
	nv     int // variants: models
	// combo is each candidate's combination of the knobs' values, and
	// same each combination's candidate (see searchStrategies).
	combo, same []int
}

// indexes returns candidate c's knobs' value indexes (candidate c is
// combination c when combo is not given).
func (r *searchRun) indexes(c int) []int {
	if r.combo != nil {
		c = r.combo[c]
	}
	return indexes(r.s, c)
}

// startSearchRun compiles sc's search's candidates on each of its
// variants, ready to run (start).
func startSearchRun(sc *engine.Scenario) (*searchRun, error) {
	_, cands, combo, same, err := searchStrategies(sc)
	if err != nil {
		return nil, err
	}
	variants, err := searchVariants(sc)
	if err != nil {
		return nil, err
	}
	subs := make([]*engine.Scenario, len(variants))
	for i, vsc := range variants {
		subs[i] = searchScenario(vsc, cands)
	}
	c := engine.CompileCandidates(sc, subs)
	r := &searchRun{s: sc.Search, c: c, out: c, n: len(cands), nv: len(subs), combo: combo, same: same}
	r.rounds = halving(r.n, r.c.Seeds())
	return r, nil
}

// simulations returns how many simulations the search makes: the
// halving's, on every variant.
func (r *searchRun) simulations() int { return r.nv * halvingSimulations(r.rounds) }

// runRounds runs the rounds and returns what the search found
// (engine.SearchRun.Run).
func (r *searchRun) runRounds(ctx context.Context, opt engine.Options) (*engine.SearchResult, error) {
	alive := make([]int, r.n)
	for c := range alive {
		alive[c] = c
	}
	ran := make([]int, r.n) // the seeds each candidate ran on
	prev := 0
	for i, round := range r.rounds {
		if i > 0 {
			alive = r.rank(alive, prev)[:round.Candidates]
			slices.Sort(alive)
		}
		for _, c := range alive {
			ran[c] = round.Seeds
		}
		var ks []int
		for ri := prev; ri < round.Seeds; ri++ {
			for v := range r.nv {
				for _, c := range alive {
					// Simulations are numbered seed after seed, and
					// within a seed variant after variant.
					ks = append(ks, (ri*r.nv+v)*r.n+c)
				}
			}
		}
		if err := r.c.Run(ctx, ks, opt); err != nil {
			return nil, err
		}
		prev = round.Seeds
	}
	res := &engine.SearchResult{
		Strategy:    r.s.Strategy,
		Method:      "successive_halving",
		Evaluated:   r.n,
		Simulations: r.simulations(),
		Rounds:      r.rounds,
		Frontier:    []engine.SearchPoint{},
	}
	if len(r.same) > r.n {
		res.Combinations, res.Same = len(r.same), sameNote(r.s, r.combo, r.same)
	}
	res.Inert = r.inert(ran)
	for _, vr := range r.s.Across {
		res.Variants = append(res.Variants, vr.Name)
	}
	res.Events = r.c.Events()
	r.frontier(res, alive, prev)
	return res, nil
}

// inert returns the paths of the knobs of more than one value whose
// values made no difference: every two candidates whose combinations
// differ in that knob's value only are the same strategy, or gave the
// same metrics (every one of them) on every seed and variant both ran
// on. ran gives the seeds each candidate ran on.
func (r *searchRun) inert(ran []int) []string {
	var out []string
	for k, kn := range r.s.Knobs {
		if len(kn.Values) < 2 {
			continue
		}
		differ := false
		for c := 0; c < len(r.same) && !differ; c++ {
			idx := indexes(r.s, c)
			if idx[k] != 0 {
				continue // each value is compared with the first
			}
			a := r.same[c]
			for j := 1; j < len(kn.Values) && !differ; j++ {
				idx[k] = j
				b := r.same[number(r.s, idx)]
				for v := 0; v < r.nv && a != b && !differ; v++ {
					for i := range min(ran[a], ran[b]) {
						// (%v writes NaN as NaN: equal where neither applies.)
						if x, y := r.out.Metrics(v, a, i), r.out.Metrics(v, b, i); x != y && fmt.Sprint(x) != fmt.Sprint(y) {
							differ = true
							break
						}
					}
				}
			}
		}
		if !differ {
			out = append(out, kn.Path)
		}
	}
	return out
}

// scores holds a candidate's means, over the seeds run so far, of the
// objectives' metrics and then the constraints', and its shortfall.
type scores struct {
	c         int
	means     []float64
	shortfall float64
}

// Across variants, each mean is the worst of the variants' means.
func (r *searchRun) score(c, seeds int) scores {
	sc := scores{c: c}
	for _, o := range r.s.Objectives {
		x, _ := worstOf(r.means(c, seeds, o.Metric), o.Goal == engine.GoalMax)
		sc.means = append(sc.means, x)
	}
	for i := range r.s.Constraints {
		ct := &r.s.Constraints[i]
		x, _ := worstOf(r.means(c, seeds, ct.Metric), ct.Op == engine.OpAtLeast)
		sc.means = append(sc.means, x)
		sc.shortfall += shortfall(ct, x)
	}
	return sc
}

// means returns candidate c's mean of metric name over the first seeds
// in each variant (one mean without variants).
func (r *searchRun) means(c, seeds int, name string) []float64 {
	xs := make([]float64, r.nv)
	for v := range xs {
		if !r.out.Applies(v, name) {
			// Not applicable in this variant (recovery where no fault
			// ends): not its worst case either (worstOf skips it).
			xs[v] = math.NaN()
			continue
		}
		sum := 0.0
		for i := range seeds {
			m := r.out.Metrics(v, c, i)
			x, _ := m.Metric(name)
			if engine.MayNotApply(name) && !m.Applies(name) {
				// It applies in this variant but not on this run (no
				// recovery time: the run did not recover under load;
				// or no span to judge recovery in for this
				// candidate): worse than any value, not the 0 Metric
				// reads.
				x = math.Inf(engine.WorseDirection(name))
			}
			sum += x
		}
		xs[v] = engine.RoundMean(sum / float64(seeds))
	}
	return xs
}

// worstOf returns the worst of xs, the lowest when higher is better and
// the highest otherwise, and its index: the first of equals.
func worstOf(xs []float64, higherBetter bool) (float64, int) {
	w := -1
	for i, x := range xs {
		if math.IsNaN(x) {
			continue // does not apply there
		}
		if w < 0 || higherBetter && x < xs[w] || !higherBetter && x > xs[w] {
			w = i
		}
	}
	if w < 0 {
		return 0, 0 // applies nowhere: 0, as Metrics.Metric reads it
	}
	return xs[w], w
}

// better reports whether objective i of a is better than b's.
func (r *searchRun) better(i int, a, b float64) bool {
	if r.s.Objectives[i].Goal == engine.GoalMax {
		return a > b
	}
	return a < b
}

// dominates reports whether a is as good as b on every objective and
// better on one.
func (r *searchRun) dominates(a, b *scores) bool {
	strict := false
	for i := range r.s.Objectives {
		switch {
		case r.better(i, b.means[i], a.means[i]):
			return false
		case r.better(i, a.means[i], b.means[i]):
			strict = true
		}
	}
	return strict
}

// compareObjectives orders by the objectives in turn, the better first,
// then by candidate.
func (r *searchRun) compareObjectives(a, b *scores) int {
	for i := range r.s.Objectives {
		switch {
		case r.better(i, a.means[i], b.means[i]):
			return -1
		case r.better(i, b.means[i], a.means[i]):
			return 1
		}
	}
	return cmp.Compare(a.c, b.c)
}

// fronts returns the Pareto front of each of ss (0 for those no other
// dominates, 1 for those only front 0 dominates, and so on), by Deb's
// fast non-dominated sort.
func (r *searchRun) fronts(ss []scores) []int {
	n := len(ss)
	front := make([]int, n)
	count := make([]int, n)   // how many dominate each
	beats := make([][]int, n) // whom each dominates
	for i := range n {
		for j := i + 1; j < n; j++ {
			switch {
			case r.dominates(&ss[i], &ss[j]):
				beats[i] = append(beats[i], j)
				count[j]++
			case r.dominates(&ss[j], &ss[i]):
				beats[j] = append(beats[j], i)
				count[i]++
			}
		}
	}
	var cur []int
	for i := range n {
		if count[i] == 0 {
			cur = append(cur, i)
		}
	}
	for f := 0; len(cur) > 0; f++ {
		var next []int
		for _, i := range cur {
			front[i] = f
			for _, j := range beats[i] {
				if count[j]--; count[j] == 0 {
					next = append(next, j)
				}
			}
		}
		cur = next
	}
	return front
}

// rank returns the candidates, best first, by their means over the first
// seeds: those that meet every constraint by Pareto front, then the
// others by shortfall, each group's ties by compareObjectives.
func (r *searchRun) rank(cands []int, seeds int) []int {
	var ok, short []scores
	for _, c := range cands {
		s := r.score(c, seeds)
		if s.shortfall == 0 {
			ok = append(ok, s)
		} else {
			short = append(short, s)
		}
	}
	fronts := r.fronts(ok)
	order := make([]int, len(ok))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(fronts[a], fronts[b]), r.compareObjectives(&ok[a], &ok[b]))
	})
	ranked := make([]int, 0, len(cands))
	for _, i := range order {
		ranked = append(ranked, ok[i].c)
	}
	slices.SortFunc(short, func(a, b scores) int {
		return cmp.Or(cmp.Compare(a.shortfall, b.shortfall), r.compareObjectives(&a, &b))
	})
	for _, s := range short {
		ranked = append(ranked, s.c)
	}
	return ranked
}

// point returns candidate c's settings and metrics over the first seeds;
// across variants, its worst cases, its metrics in each variant and the
// variants that bind (see SearchPoint).
func (r *searchRun) point(c, seeds int) engine.SearchPoint {
	ms := make([]engine.Metrics, r.nv)
	spreads := make([]map[string]engine.MinMax, r.nv)
	for v := range r.nv {
		ms[v], spreads[v] = r.out.MeanSpread(v, c, seeds)
	}
	p := engine.SearchPoint{Settings: settings(r.s, r.indexes(c)), Metrics: ms[0], Spread: spreads[0]}
	tails := seeds >= engine.TailSeeds
	if tails {
		p.Quantiles = map[string]engine.Quantiles{}
	}
	// quantile sets the judged metric name's quantiles in variant v.
	quantile := func(name string, v int) {
		if !tails {
			return
		}
		xs := make([]float64, seeds)
		for i := range xs {
			m := r.out.Metrics(v, c, i)
			if engine.MayNotApply(name) && !m.Applies(name) {
				return // no quantiles where it does not apply on a seed (see meanSpread)
			}
			xs[i], _ = m.Metric(name)
		}
		p.Quantiles[name] = engine.QuantilesOf(xs)
	}
	if len(r.s.Across) == 0 {
		for _, o := range r.s.Objectives {
			quantile(o.Metric, 0)
		}
		for _, ct := range r.s.Constraints {
			quantile(ct.Metric, 0)
		}
		return p
	}
	// Each judged metric with the direction its worst case is taken in:
	// constraints first, so that an objective's overrides.
	type judged struct {
		name         string
		higherBetter bool
	}
	var js []judged
	for _, ct := range r.s.Constraints {
		js = append(js, judged{ct.Metric, ct.Op == engine.OpAtLeast})
	}
	for _, o := range r.s.Objectives {
		js = append(js, judged{o.Metric, o.Goal == engine.GoalMax})
	}
	first := js[len(r.s.Constraints)]
	_, b := worstOf(r.means(c, seeds, first.name), first.higherBetter)
	p.Metrics, p.Spread = ms[b], maps.Clone(spreads[b])
	p.Binding = map[string]string{}
	for _, j := range js {
		x, v := worstOf(r.means(c, seeds, j.name), j.higherBetter)
		if math.IsInf(x, 0) {
			x = math.NaN() // does not apply on some run (see means)
		}
		setMetric(&p.Metrics, j.name, x)
		if mm, ok := spreads[v][j.name]; ok {
			p.Spread[j.name] = mm
		} else {
			delete(p.Spread, j.name)
		}
		p.Binding[j.name] = r.s.Across[v].Name
		quantile(j.name, v)
	}
	for v := range r.nv {
		vm := engine.VariantMetrics{Name: r.s.Across[v].Name, Metrics: map[string]float64{}, Spread: map[string]engine.MinMax{}}
		for _, j := range js {
			if !r.out.Applies(v, j.name) {
				continue // left out: it does not apply in this variant
			}
			vm.Metrics[j.name], _ = ms[v].Metric(j.name)
			if mm, ok := spreads[v][j.name]; ok {
				vm.Spread[j.name] = mm
			}
		}
		p.Variants = append(p.Variants, vm)
	}
	return p
}

// setMetric sets m's metric with the given JSON name to x.
func setMetric(m *engine.Metrics, name string, x float64) {
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		if n, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ","); n == name {
			v.Field(i).SetFloat(x)
			return
		}
	}
}

// frontier fills res's frontier, recommendation or note from the
// candidates of the last round, which ran on the first seeds.
func (r *searchRun) frontier(res *engine.SearchResult, alive []int, seeds int) {
	var ok []scores
	var closest *scores
	for _, c := range alive {
		s := r.score(c, seeds)
		if s.shortfall == 0 {
			ok = append(ok, s)
		} else if closest == nil || s.shortfall < closest.shortfall {
			closest = &s
		}
	}
	res.Feasible = len(ok)
	constraints := make([]string, len(r.s.Constraints))
	for i := range r.s.Constraints {
		constraints[i] = r.s.Constraints[i].String()
	}
	// Across variants, a metric's worst case says in which variant.
	everyVariant := ""
	if len(r.s.Across) > 0 {
		everyVariant = " in every variant"
	}
	if len(ok) == 0 {
		var misses []string
		for i := range r.s.Constraints {
			ct := &r.s.Constraints[i]
			x, v := worstOf(r.means(closest.c, seeds, ct.Metric), ct.Op == engine.OpAtLeast)
			if !ct.Meets(x) {
				where := ""
				if len(r.s.Across) > 0 {
					where = fmt.Sprintf(" (in %q)", r.s.Across[v].Name)
				}
				misses = append(misses, fmt.Sprintf("%s %s%s", ct.Metric, formatMetric(ct.Metric, x), where))
			}
		}
		res.Note = fmt.Sprintf("None of the %d candidates of the last round meets %s%s on average over %s; the closest, %s, has %s.",
			len(alive), strings.Join(constraints, " and "), everyVariant, overSeeds(seeds), settingsText(r.s, r.indexes(closest.c)), strings.Join(misses, " and "))
		return
	}
	fronts := r.fronts(ok)
	var front []scores
	for i := range ok {
		if fronts[i] == 0 {
			front = append(front, ok[i])
		}
	}
	slices.SortFunc(front, func(a, b scores) int { return r.compareObjectives(&a, &b) })
	for _, s := range front {
		res.Frontier = append(res.Frontier, r.point(s.c, seeds))
	}
	if len(front) > 1 && !slices.ContainsFunc(front[1:], func(s scores) bool {
		return !slices.Equal(s.means[:len(r.s.Objectives)], front[0].means[:len(r.s.Objectives)])
	}) {
		// Nothing to choose between on the frontier: say so rather than
		// recommend the first of equals. (The candidates it dominates, if
		// any, do worse; the objectives do not tell its points apart.)
		var vals []string
		for _, ob := range r.s.Objectives {
			y, _ := res.Frontier[0].Metrics.Metric(ob.Metric)
			vals = append(vals, fmt.Sprintf("%s %s", ob.Metric, formatMetric(ob.Metric, y)))
		}
		worst := ""
		if len(r.s.Across) > 0 {
			worst = " in their worst variants"
		}
		others := ""
		if n := len(ok) - len(front); n > 0 {
			others = fmt.Sprintf(" (the other %d candidates of the last round that meet the constraints%s do worse)", n, everyVariant)
		}
		res.Note = fmt.Sprintf("No objective separates the %d frontier points: all have %s%s on average over %s%s, so none is recommended; choose objectives the knobs change in this scenario.",
			len(front), strings.Join(vals, " and "), worst, overSeeds(seeds), others)
		return
	}
	best := res.Frontier[0]
	o := r.s.Objectives[0]
	x, _ := best.Metrics.Metric(o.Metric)
	word := "highest"
	if o.Goal == engine.GoalMin {
		word = "lowest"
	}
	spread := ""
	if mm, ok := best.Spread[o.Metric]; ok && mm.Min != mm.Max {
		spread = fmt.Sprintf(", %s..%s over the seeds", formatMetric(o.Metric, mm.Min), formatMetric(o.Metric, mm.Max))
	}
	if len(r.s.Across) > 0 {
		// Which variant binds: the one the first objective is worst in.
		word = fmt.Sprintf("%s worst-case", word)
		spread = fmt.Sprintf(" in %q, the variant that binds%s", best.Binding[o.Metric], strings.Replace(spread, ",", ";", 1))
	}
	meeting := ""
	if len(constraints) > 0 {
		meeting = " that meet " + strings.Join(constraints, " and ") + everyVariant + " on average"
	}
	var others []string
	for _, ob := range r.s.Objectives[1:] {
		y, _ := best.Metrics.Metric(ob.Metric)
		where := ""
		if len(r.s.Across) > 0 {
			where = fmt.Sprintf(" at worst (in %q)", best.Binding[ob.Metric])
		}
		others = append(others, fmt.Sprintf("%s %s%s", ob.Metric, formatMetric(ob.Metric, y), where))
	}
	with := ""
	if len(others) > 0 {
		with = ", with " + strings.Join(others, " and ")
	}
	ties := 0
	for _, f := range front[1:] {
		if slices.Equal(f.means[:len(r.s.Objectives)], front[0].means[:len(r.s.Objectives)]) {
			ties++
		}
	}
	tie := ""
	switch ties {
	case 0:
	case 1:
		tie = "; the next frontier point ties with it on every objective"
	default:
		tie = fmt.Sprintf("; the next %d frontier points tie with it on every objective", ties)
	}
	over := overSeeds(seeds)
	if n := len(r.s.Across); n > 0 {
		over += fmt.Sprintf(" and %d variants", n)
	}
	res.Recommendation = &engine.Recommendation{SearchPoint: best, Reason: fmt.Sprintf(
		"%s gives the %s mean %s (%s%s) of the %d frontier points%s, out of %d candidates over %s%s%s.",
		settingsText(r.s, r.indexes(front[0].c)), word, o.Metric, formatMetric(o.Metric, x), spread, len(front), meeting, r.n, over, with, tie)}
}

// overSeeds writes "1 seed" or "n seeds".
func overSeeds(n int) string {
	if n == 1 {
		return "1 seed"
	}
	return fmt.Sprintf("%d seeds", n)
}

// shortfall returns how far x misses constraint c, relative to its
// bound (divided by |Value|, or by 1 when |Value| < 1); 0 when it meets it.
func shortfall(c *engine.Constraint, x float64) float64 {
	miss := x - c.Value
	if c.Op == engine.OpAtLeast {
		miss = c.Value - x
	}
	return max(0, miss) / max(math.Abs(c.Value), 1)
}

// formatMetric writes metric name's value x for a sentence: a rate as a
// percentage with two decimals, a number of 1,000 or more whole, any
// other with four significant digits.
func formatMetric(name string, x float64) string {
	switch info, _ := engine.DescribeMetric(name); {
	case info.Unit == "%":
		return strconv.FormatFloat(x*100, 'f', 2, 64) + "%"
	case math.Abs(x) >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// searchFloor is the fewest candidates a round of successive halving
// keeps (all of them when there are fewer), so that the frontier has
// points to choose from.
const searchFloor = 8
