//go:build !nosearch

// The search's checking and running; search_none.go is the other side of
// this pair, for builds that leave searches out (the Cloudflare Worker).

package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Searches is true: this build runs a scenario's search block.
const Searches = true

// search checks a search block: its strategy, knobs, objectives,
// constraints and budget, then that each knob's values, with the other
// knobs at their first values, and then each candidate, give a valid
// strategy.
func (v *validator) search(sc *Scenario, deps depNames, calls map[string]bool) {
	s := sc.Search
	si := slices.IndexFunc(sc.Strategies, func(st Strategy) bool { return st.Name == s.Strategy })
	if si < 0 {
		names := make([]string, len(sc.Strategies))
		for i := range sc.Strategies {
			names[i] = sc.Strategies[i].Name
		}
		v.add("search.strategy", s.Strategy, "is not the name of a strategy of the scenario; they are %s", quoteList(names))
	}
	switch n := len(s.Knobs); {
	case n == 0:
		v.add("search.knobs", nil, "is empty; a search varies 1..%d knobs, each a path in the strategy and its values", MaxSearchKnobs)
	case n > MaxSearchKnobs:
		v.add("search.knobs", nil, "lists %d knobs; at most %d are allowed", n, MaxSearchKnobs)
	}
	paths := map[string]int{}
	steps := make([][]pathStep, len(s.Knobs))
	for k, kn := range s.Knobs {
		p := fmt.Sprintf("search.knobs[%d]", k)
		var err error
		if steps[k], err = parsePath(kn.Path, p+".path"); err != nil {
			for _, e := range AsErrors(err) {
				v.addError(e)
			}
		} else if !v.knobPath(k, kn.Path, steps[k], s.Strategy) {
			// said
		} else if j, dup := paths[kn.Path]; dup {
			v.add(p+".path", kn.Path, "is also the path of search.knobs[%d]; a path is varied by one knob", j)
		} else {
			paths[kn.Path] = k
		}
		if n := len(kn.Values); n == 0 || n > MaxKnobValues {
			v.add(p+".values", nil, "lists %d values; give 1..%d", n, MaxKnobValues)
		}
	}
	switch n := len(s.Objectives); {
	case n == 0:
		v.add("search.objectives", nil, "is empty; give 1..%d objectives, each a metric and \"max\" or \"min\"", MaxObjectives)
	case n > MaxObjectives:
		v.add("search.objectives", nil, "lists %d objectives; at most %d are allowed", n, MaxObjectives)
	}
	metricNames := MetricNames()
	seen := map[string]int{}
	for i, o := range s.Objectives {
		p := fmt.Sprintf("search.objectives[%d]", i)
		if !slices.Contains(metricNames, o.Metric) {
			v.add(p+".metric", o.Metric, "is not a metric name (metrics: %s)", strings.Join(metricNames, ", "))
		} else if j, dup := seen[o.Metric]; dup {
			v.add(p+".metric", o.Metric, "is also search.objectives[%d]; an objective is given once", j)
		} else {
			seen[o.Metric] = i
		}
		oneOf(v, p+".goal", o.Goal, Goals...)
	}
	if n := len(s.Constraints); n > MaxConstraints {
		v.add("search.constraints", nil, "lists %d constraints; at most %d are allowed", n, MaxConstraints)
	}
	for i, c := range s.Constraints {
		v.constraint(fmt.Sprintf("search.constraints[%d]", i), &c)
	}
	if s.Budget != 0 {
		v.intRange("search.budget", s.Budget, 1, MaxSearchCandidates)
	}
	if v.failed() {
		return
	}
	if n, counts := s.candidates(); n > s.budget() {
		v.add("search.knobs", nil, "give %s candidates (%s values, every combination); the budget allows %d (search.budget, %d by default, at most %d): give fewer values",
			humanCount(int64(n)), counts, s.budget(), DefaultSearchBudget, MaxSearchCandidates)
		return
	}
	n, _ := s.candidates()
	raw, _ := json.Marshal(&sc.Strategies[si])
	size := len(raw)
	for _, kn := range s.Knobs {
		longest := 0
		for _, val := range kn.Values {
			longest = max(longest, len(val))
		}
		size += longest
	}
	if n*size > MaxSearchBytes {
		v.add("search.knobs", nil, "give %d candidates of a strategy of up to %d bytes; a search reads the strategy again for each candidate, and candidates × its size may be at most %d KiB: give fewer values, or shorten the strategy",
			n, size, MaxSearchBytes>>10)
		return
	}
	v.knobValues(s, steps)
	if v.failed() {
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
		for _, e := range sc.candidate(si, only(k, 0), deps, calls) {
			if e.Path == fmt.Sprintf("search.knobs[%d].path", k) {
				v.addError(e) // the path does not fit the strategy, whatever the value
			}
		}
	}
	if !v.failed() {
		v.missingObjects(sc, si, steps, deps, calls)
	}
	if v.failed() {
		return
	}
	same := func(a, b FieldError) bool { return a.Path == b.Path && a.Value == b.Value && a.Message == b.Message }
	blame := func(k, j int, e FieldError) {
		v.addError(FieldError{Path: fmt.Sprintf("search.knobs[%d].values[%d]", k, j), Value: e.Value,
			Message: "at " + e.Path + " " + e.Message + s.keptFields(k, si, steps[k], e.Path)})
	}
	base := sc.candidate(si, make([]int, len(s.Knobs)), deps, calls)
	for _, e := range base {
		k := -1
		for i := range s.Knobs {
			if slices.ContainsFunc(sc.candidate(si, only(i, 0), deps, calls), func(x FieldError) bool { return same(x, e) }) {
				k = i
				break
			}
		}
		if k < 0 {
			v.add("search.knobs", nil, "give, with every knob at its first value, a strategy that is not valid: at %s %s %s", e.Path, e.Value, e.Message)
			continue
		}
		blame(k, 0, e)
	}
	for k, kn := range s.Knobs {
		for j := 1; j < len(kn.Values); j++ {
			idx := make([]int, len(s.Knobs))
			idx[k] = j
			for _, e := range sc.candidate(si, idx, deps, calls) {
				if !slices.ContainsFunc(base, func(b FieldError) bool { return same(b, e) }) {
					blame(k, j, e)
				}
			}
		}
	}
	if v.failed() {
		return
	}
	for c := range n {
		idx := s.indexes(c)
		if es := sc.candidate(si, idx, deps, calls); len(es) > 0 {
			e := es[0]
			v.add("search.knobs", nil, "give a candidate that is not valid, %s: at %s %s %s", s.settingsText(idx), e.Path, e.Value, e.Message)
		}
	}
}

// keptFields returns, when an error at errPath is in the object knob k
// sets a field of, but not at that field, what to add to the error: the
// knob keeps the object's other fields (the strategy's, or its preset's),
// and a knob on the whole object replaces them. Otherwise "".
func (s *Search) keptFields(k, si int, steps []pathStep, errPath string) string {
	if len(steps) < 2 || steps[len(steps)-1].key == "" {
		return ""
	}
	obj := pathText(steps[:len(steps)-1])
	under := fmt.Sprintf("strategies[%d].%s.", si, obj)
	if !strings.HasPrefix(errPath, under) || errPath == fmt.Sprintf("strategies[%d].%s", si, s.Knobs[k].Path) {
		return ""
	}
	for _, kn := range s.Knobs {
		if kn.Path == obj {
			return "" // the object is a knob of its own
		}
	}
	return fmt.Sprintf("; the knob %q keeps the strategy's other %s fields: vary the whole object instead, with a knob %q with object values", s.Knobs[k].Path, obj, obj)
}

// candidate returns the errors of the strategy that sets the knobs'
// values idx in strategy si, validated as strategy si of the scenario.
func (sc *Scenario) candidate(si int, idx []int, deps depNames, calls map[string]bool) Errors {
	st, err := sc.knobbed(si, idx)
	if err != nil {
		return AsErrors(err)
	}
	v := &validator{}
	v.strategy(fmt.Sprintf("strategies[%d]", si), &st, deps, calls)
	return v.errs
}

// budget returns the most candidates the search may give.
func (s *Search) budget() int { return cmp.Or(s.Budget, DefaultSearchBudget) }

// candidates returns how many candidates the knobs give (at most
// MaxSearchCandidates+1: more are not counted) and their value counts,
// as "4 × 3 × 2".
func (s *Search) candidates() (int, string) {
	n := 1
	counts := make([]string, len(s.Knobs))
	for k, kn := range s.Knobs {
		n = min(n*len(kn.Values), MaxSearchCandidates+1)
		counts[k] = strconv.Itoa(len(kn.Values))
	}
	return n, strings.Join(counts, " × ")
}

// indexes returns the knobs' value indexes of candidate c. Candidates are
// numbered as nested loops over the knobs number them, the first knob
// outermost: the last knob's value changes from one candidate to the next.
func (s *Search) indexes(c int) []int {
	idx := make([]int, len(s.Knobs))
	for k := len(s.Knobs) - 1; k >= 0; k-- {
		n := len(s.Knobs[k].Values)
		idx[k] = c % n
		c /= n
	}
	return idx
}

// settings returns the knobs' values idx by path, compacted.
func (s *Search) settings(idx []int) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(s.Knobs))
	for k, kn := range s.Knobs {
		m[kn.Path] = compactValue(kn.Values[idx[k]])
	}
	return m
}

// settingsText writes the knobs' values idx, in the knobs' order, as
// "max_attempts 3, backoff.base "100ms"".
func (s *Search) settingsText(idx []int) string {
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
// idx (a knob whose index is negative is left as the strategy has it).
// Its errors name the strategy's paths, or the knob's path when the path
// does not fit the strategy.
func (sc *Scenario) knobbed(si int, idx []int) (Strategy, error) {
	raw, err := json.Marshal(&sc.Strategies[si])
	if err != nil {
		return Strategy{}, err
	}
	var tree any
	if err := unmarshalNumbers(raw, &tree); err != nil {
		return Strategy{}, err
	}
	for _, k := range knobOrder(sc.Search) {
		kn := sc.Search.Knobs[k]
		if idx[k] < 0 {
			continue // left as the strategy has it
		}
		field := fmt.Sprintf("search.knobs[%d].path", k)
		steps, err := parsePath(kn.Path, field)
		if err != nil {
			return Strategy{}, err
		}
		var val any
		if r := kn.Values[idx[k]]; len(r) > 0 && string(r) != "null" {
			if err := unmarshalNumbers(r, &val); err != nil {
				return Strategy{}, Errors{{Path: fmt.Sprintf("search.knobs[%d].values[%d]", k, idx[k]), Message: "is not valid JSON"}}
			}
		}
		if err := setPath(tree, steps, val, kn.Path, field); err != nil {
			return Strategy{}, err
		}
	}
	var st Strategy
	d := decoder{}
	d.value(fmt.Sprintf("strategies[%d]", si), tree, reflect.ValueOf(&st).Elem())
	if len(d.errs) > 0 {
		return Strategy{}, d.errs
	}
	return st, nil
}

// searchStrategies returns the index of the search's strategy and every
// candidate, in order. The scenario is valid.
func (sc *Scenario) searchStrategies() (int, []Strategy, error) {
	s := sc.Search
	si := slices.IndexFunc(sc.Strategies, func(st Strategy) bool { return st.Name == s.Strategy })
	if si < 0 {
		return 0, nil, fmt.Errorf("engine: search.strategy %q is not a strategy of the scenario", s.Strategy)
	}
	n, _ := s.candidates()
	cands := make([]Strategy, n)
	for c := range n {
		st, err := sc.knobbed(si, s.indexes(c))
		if err != nil {
			return 0, nil, err
		}
		st.Name = fmt.Sprintf("%s#%d", st.Name, c)
		cands[c] = st
	}
	return si, cands, nil
}

// searchScenario returns a copy of sc, without its search, whose
// strategies are the given candidates.
func searchScenario(sc *Scenario, cands []Strategy) *Scenario {
	sub := *sc
	sub.Search, sub.Sweep = nil, nil
	sub.Strategies = cands
	return &sub
}

// halving returns the rounds of successive halving of n candidates over
// the given number of seeds.
func halving(n, seeds int) []SearchRound {
	var rounds []SearchRound
	s := 1
	for {
		rounds = append(rounds, SearchRound{Seeds: s, Candidates: n})
		if s >= seeds {
			return rounds
		}
		s = min(2*s, seeds)
		n = max((n+1)/2, min(n, searchFloor))
	}
}

// halvingSimulations returns how many simulations the rounds make: each
// round runs its candidates on the seeds they have not run on yet.
func halvingSimulations(rounds []SearchRound) int {
	total, prev := 0, 0
	for _, r := range rounds {
		total += r.Candidates * (r.Seeds - prev)
		prev = r.Seeds
	}
	return total
}

// estimateSearch returns the estimated cost of a search, in events, as a
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
func estimateSearch(sc *Scenario) int64 {
	_, cands, err := sc.searchStrategies()
	if err != nil || len(cands) == 0 {
		return math.MaxInt64 / 2
	}
	sub := searchScenario(sc, nil)
	seeds := len(seedsOf(sc))
	perSeed := make([]float64, len(cands))
	for i := range cands {
		sub.Strategies = cands[i : i+1]
		perSeed[i] = float64(estimate(sub, false)) / float64(seeds)
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

// estimateSearchSize returns about how many numbers a search's result
// holds: a point's per candidate, a bound.
func estimateSearchSize(sc *Scenario) float64 {
	n, _ := sc.Search.candidates()
	return float64(n+1) * (3*80 + float64(len(sc.Search.Knobs))) // the recommendation repeats a point
}

// A searchRun is a search being run: its candidates compiled as the
// strategies of one model, every simulation a candidate on a seed.
type searchRun struct {
	sc     *Scenario
	s      *Search
	set    *simSet
	rounds []SearchRound
	n      int // candidates
}

func newSearchRun(sc *Scenario) (*searchRun, error) {
	_, cands, err := sc.searchStrategies()
	if err != nil {
		return nil, err
	}
	m := compile(searchScenario(sc, cands))
	r := &searchRun{sc: sc, s: sc.Search, set: newSimSet([]*model{m}), n: len(cands)}
	r.rounds = halving(r.n, len(m.seeds))
	return r, nil
}

// simulations returns how many simulations the search makes.
func (r *searchRun) simulations() int { return halvingSimulations(r.rounds) }

// run runs the rounds and returns what the search found.
func (r *searchRun) run(ctx context.Context, opt Options, p *progress) (*SearchResult, error) {
	alive := make([]int, r.n)
	for c := range alive {
		alive[c] = c
	}
	prev := 0
	for i, round := range r.rounds {
		if i > 0 {
			alive = r.rank(alive, prev)[:round.Candidates]
			slices.Sort(alive)
		}
		var ks []int
		for ri := prev; ri < round.Seeds; ri++ {
			for _, c := range alive {
				ks = append(ks, ri*r.n+c) // simulations are numbered seed after seed
			}
		}
		if err := r.set.run(ctx, ks, opt, p, false); err != nil {
			return nil, err
		}
		prev = round.Seeds
	}
	res := &SearchResult{
		Strategy:    r.s.Strategy,
		Method:      "successive_halving",
		Evaluated:   r.n,
		Simulations: r.simulations(),
		Rounds:      r.rounds,
		Frontier:    []SearchPoint{},
	}
	for _, e := range r.set.events {
		res.Events += e
	}
	r.frontier(res, alive, prev)
	return res, nil
}

// scores holds a candidate's means, over the seeds run so far, of the
// objectives' metrics and then the constraints', and its shortfall.
type scores struct {
	c         int
	means     []float64
	shortfall float64
}

func (r *searchRun) score(c, seeds int) scores {
	outs := r.set.outs[0][c][:seeds]
	mean := func(name string) float64 {
		sum := 0.0
		for i := range outs {
			x, _ := outs[i].metrics.Metric(name)
			sum += x
		}
		return round6(sum / float64(len(outs)))
	}
	sc := scores{c: c}
	for _, o := range r.s.Objectives {
		sc.means = append(sc.means, mean(o.Metric))
	}
	for i := range r.s.Constraints {
		ct := &r.s.Constraints[i]
		x := mean(ct.Metric)
		sc.means = append(sc.means, x)
		sc.shortfall += ct.shortfall(x)
	}
	return sc
}

// better reports whether objective i of a is better than b's.
func (r *searchRun) better(i int, a, b float64) bool {
	if r.s.Objectives[i].Goal == GoalMax {
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

// point returns candidate c's settings and metrics over the first seeds.
func (r *searchRun) point(c, seeds int) SearchPoint {
	m, spread := meanSpread(r.set.outs[0][c][:seeds], func(o *runOutput) Metrics { return o.metrics })
	return SearchPoint{Settings: r.s.settings(r.s.indexes(c)), Metrics: m, Spread: spread}
}

// frontier fills res's frontier, recommendation or note from the
// candidates of the last round, which ran on the first seeds.
func (r *searchRun) frontier(res *SearchResult, alive []int, seeds int) {
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
	if len(ok) == 0 {
		p := r.point(closest.c, seeds)
		var misses []string
		for i := range r.s.Constraints {
			ct := &r.s.Constraints[i]
			if x, _ := p.Metrics.Metric(ct.Metric); !ct.meets(x) {
				misses = append(misses, fmt.Sprintf("%s %s", ct.Metric, formatMetric(ct.Metric, x)))
			}
		}
		res.Note = fmt.Sprintf("None of the %d candidates of the last round meets %s over %d seeds; the closest, %s, has %s.",
			len(alive), strings.Join(constraints, " and "), seeds, r.s.settingsText(r.s.indexes(closest.c)), strings.Join(misses, " and "))
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
	if len(ok) > 1 && !slices.ContainsFunc(ok[1:], func(s scores) bool {
		return !slices.Equal(s.means[:len(r.s.Objectives)], ok[0].means[:len(r.s.Objectives)])
	}) {
		// Nothing to choose between: say so rather than recommend the
		// first of equals.
		var vals []string
		for _, ob := range r.s.Objectives {
			y, _ := res.Frontier[0].Metrics.Metric(ob.Metric)
			vals = append(vals, fmt.Sprintf("%s %s", ob.Metric, formatMetric(ob.Metric, y)))
		}
		res.Note = fmt.Sprintf("No objective separates the candidates: all %d of the last round that meet the constraints have %s over %d seeds, so none is recommended; choose objectives the knobs change in this scenario.",
			len(ok), strings.Join(vals, " and "), seeds)
		return
	}
	best := res.Frontier[0]
	o := r.s.Objectives[0]
	x, _ := best.Metrics.Metric(o.Metric)
	word := "highest"
	if o.Goal == GoalMin {
		word = "lowest"
	}
	spread := ""
	if mm, ok := best.Spread[o.Metric]; ok && mm.Min != mm.Max {
		spread = fmt.Sprintf(", %s..%s over the seeds", formatMetric(o.Metric, mm.Min), formatMetric(o.Metric, mm.Max))
	}
	meeting := ""
	if len(constraints) > 0 {
		meeting = " that meet " + strings.Join(constraints, " and ")
	}
	var others []string
	for _, ob := range r.s.Objectives[1:] {
		y, _ := best.Metrics.Metric(ob.Metric)
		others = append(others, fmt.Sprintf("%s %s", ob.Metric, formatMetric(ob.Metric, y)))
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
	res.Recommendation = &Recommendation{SearchPoint: best, Reason: fmt.Sprintf(
		"%s gives the %s mean %s (%s%s) of the %d frontier points%s, out of %d candidates over %d seeds%s%s.",
		r.s.settingsText(r.s.indexes(front[0].c)), word, o.Metric, formatMetric(o.Metric, x), spread, len(front), meeting, r.n, seeds, with, tie)}
}
