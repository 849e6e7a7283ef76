//go:build !nosearch

// The view of a policy search. A build without searches (the Cloudflare
// Worker's nosearch) leaves it out; search_none.go is the other side of
// this pair.

package view

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
)

// searchView returns the view of sc's search as res found it, or nil when
// either has none.
func searchView(sc *engine.Scenario, res *engine.Result) *SearchView {
	s, r := sc.Search, res.Search
	if s == nil || r == nil {
		return nil
	}
	sv := &SearchView{Summary: searchSummary(s, r), Note: r.Note, Points: []SearchPoint{}}
	if lib := engine.LibraryNamed(s.Within); lib != nil {
		sv.Limits = limitsText(s, lib)
	}
	for _, kn := range s.Knobs {
		sv.Settings = append(sv.Settings, kn.Path)
	}
	for _, k := range s.JudgedMetrics() {
		m, _ := MetricOf(k)
		sv.Metrics = append(sv.Metrics, m)
	}
	// The sentences in words, from the result's numbers: the engine's own
	// (Reason, Note) name settings as JSON and metrics by their keys.
	own := keeps(sc, r)
	sv.Recommendation = recommendationText(s, r, len(res.Seeds), own)
	if r.Recommendation != nil { // the frontier's first point (engine.SearchResult)
		sv.Lead = leadText(s, r, own) + "."
	}
	if note := tieNote(s, r, len(res.Seeds)); note != "" {
		sv.Note = note
	}
	if r.Same != "" {
		sv.Summary += " " + r.Same + "."
	}
	layered := slices.ContainsFunc(sc.Strategies, func(st engine.Strategy) bool { return st.Name == s.Strategy && len(st.Layers) > 0 })
	if inert := inertText(r.Inert, layered); inert != "" {
		switch {
		case sv.Recommendation != "":
			sv.Recommendation += " " + inert
		case sv.Note != "":
			sv.Note += " " + inert
		}
	}
	for i, p := range r.Frontier {
		pt := SearchPoint{Name: fmt.Sprintf("%s (search %d)", s.Strategy, i+1)}
		for _, kn := range s.Knobs {
			pt.Settings = append(pt.Settings, knobCell(kn.Path, p.Settings[kn.Path]))
		}
		pt.Words = settingsSentence(s, p.Settings)
		for _, m := range sv.Metrics {
			v, _ := p.Metrics.Metric(m.Key)
			v, lo, hi := withSpread(v, p.Spread, m.Key)
			c := Cell{Value: format(m, v, false)}
			if lo != hi {
				c.Spread = format(m, lo, false) + "–" + format(m, hi, false)
			}
			pt.Cells = append(pt.Cells, c)
		}
		pt.Recommended = i == 0 && r.Recommendation != nil
		if st, err := sc.SearchCandidate(p.Settings); err == nil {
			st.Name = pt.Name
			st.Description = "found by the search from " + s.Strategy + ": " + pt.Words
			pt.Strategy, _ = json.Marshal(&st)
		}
		sv.Points = append(sv.Points, pt)
	}
	sv.Groups = groupPoints(sv.Points)
	if len(r.Frontier) > 0 {
		sv.Figure = frontierFigure(s, len(r.Frontier))
	}
	return sv
}

// inertText says which knobs changed no metric on any seed (the
// engine's SearchResult.Inert), so that no one reads a choice into their
// values, and, for a layered strategy (layered), the likely cause; ""
// when there are none.
func inertText(paths []string, layered bool) string {
	if len(paths) == 0 {
		return ""
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = knobWords(p)
	}
	why := ""
	if layered { // else the cause is the run's own (no Retry-After sent, say)
		why = " (it may act on a level that never gets to retry)"
		if len(names) > 1 {
			why = " (they may act on a level that never gets to retry)"
		}
	}
	if len(names) == 1 {
		return fmt.Sprintf("The knob %s changed no metric on any seed: its values here are not a choice%s.", names[0], why)
	}
	return fmt.Sprintf("The knobs %s changed no metric on any seed: their values here are not a choice%s.", listWords(names), why)
}

// groupPoints groups the frontier's points into runs of consecutive points
// whose cells are the same, each listing its first SearchShown points.
func groupPoints(points []SearchPoint) []SearchGroup {
	groups := []SearchGroup{}
	for i := 0; i < len(points); {
		j := i + 1
		for j < len(points) && slices.Equal(points[j].Cells, points[i].Cells) {
			j++
		}
		var g SearchGroup
		for k := i; k < j; k++ {
			if k-i < SearchShown {
				g.Shown = append(g.Shown, k)
			} else {
				g.Hidden = append(g.Hidden, k)
			}
		}
		if len(g.Hidden) > 0 {
			g.More = fmt.Sprintf("and %d more with the same figures", len(g.Hidden))
		}
		groups = append(groups, g)
		i = j
	}
	return groups
}

// frontierFigure is the frontier picture of a search of n points.
func frontierFigure(s *engine.Search, n int) *Figure {
	x, _ := MetricOf(s.Objectives[0].Metric)
	alt := fmt.Sprintf("The search's %d frontier points by %s", n, lower(x.Label))
	if len(s.Objectives) > 1 {
		y, _ := MetricOf(s.Objectives[1].Metric)
		alt += " and " + lower(y.Label)
	}
	alt += ", joined, with the recommended one labelled"
	return &Figure{Name: "frontier", Query: "picture=frontier", Alt: alt, Options: chart.Options{Picture: chart.Frontier, Search: s}}
}

// knobCell writes knob path's value for the table, in the words the
// recommendation uses, without the path the column names: a retry_level's
// as "every level" or "layer 2", a missing object as "no budget" (its
// field's name), any other as valueWords does ("3", "full",
// "exponential 200 ms → 2 s", "ratio 10% over 1 s"), never as JSON.
func knobCell(path string, raw json.RawMessage) string {
	if path == engine.RetryLevel {
		return RetryLevelCell(raw)
	}
	if len(raw) == 0 || string(raw) == "null" {
		if rest, _, ok := levelKnob(path); ok {
			path = rest
		}
		if i := strings.LastIndexAny(path, ".]"); i >= 0 {
			path = path[i+1:]
		}
		return "no " + path
	}
	return valueWords(raw)
}

// limitsText says which library's limits the search kept to, when every
// value of its knobs is one that library's default search tries (a
// subset, as the playground's form writes it): those are the values its
// exporter writes exactly. A search that names the library but goes
// beyond those values is told so, knob by knob, rather than promised an
// exact export.
func limitsText(s *engine.Search, lib *engine.Library) string {
	var outside []string
	for _, kn := range s.Knobs {
		i := slices.IndexFunc(lib.Knobs, func(l engine.Knob) bool { return l.Path == kn.Path })
		if i < 0 {
			outside = append(outside, kn.Path+" (not a knob within them)")
			continue
		}
		for _, v := range kn.Values {
			if !slices.ContainsFunc(lib.Knobs[i].Values, func(l json.RawMessage) bool { return sameJSON(l, v) }) {
				outside = append(outside, kn.Path+" "+valueWords(v))
			}
		}
	}
	if len(outside) == 0 {
		return lib.Sentence() + "."
	}
	return fmt.Sprintf("The search names %s's limits (search.within %q), but goes beyond the values searched within them, so its recommendation may not export as %s exactly: %s.",
		lib.Label, lib.Name, lib.Format, strings.Join(outside, "; "))
}

// orNull returns raw, or null when it is empty, as a knob's value null
// decodes.
func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// sameJSON reports whether a and b are the same JSON value, whatever
// their spacing and key order (an empty value is null).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(orNull(a), &x) != nil || json.Unmarshal(orNull(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// searchSummary says how the search went, in two or three sentences.
func searchSummary(s *engine.Search, r *engine.SearchResult) string {
	var rounds []string
	for _, rd := range r.Rounds {
		seeds := "seeds"
		if rd.Seeds == 1 {
			seeds = "seed"
		}
		rounds = append(rounds, fmt.Sprintf("%d on %d %s", rd.Candidates, rd.Seeds, seeds))
	}
	method := strings.ReplaceAll(r.Method, "_", " ")
	var b strings.Builder
	fmt.Fprintf(&b, "Search from %s: %d candidates by %s (%s), %s simulations.", r.Strategy, r.Evaluated, method, strings.Join(rounds, ", "), strconv.Itoa(r.Simulations))
	var objs []string
	for _, o := range s.Objectives {
		m, _ := MetricOf(o.Metric)
		word := "highest"
		if o.Goal == engine.GoalMin {
			word = "lowest"
		}
		objs = append(objs, word+" "+lower(m.Label))
	}
	fmt.Fprintf(&b, " Objectives: %s.", strings.Join(objs, ", then "))
	if len(s.Constraints) == 0 {
		b.WriteString(" Constraints: none.")
	} else {
		var cs []string
		for _, c := range s.Constraints {
			cs = append(cs, constraintWords(c))
		}
		fmt.Fprintf(&b, " Constraints: %s; %d of the last round's %d candidates meet them.", strings.Join(cs, " and "), r.Feasible, r.Rounds[len(r.Rounds)-1].Candidates)
	}
	return b.String()
}

// searchLead is the verdict's first sentence when the scenario has a
// search: what it recommends (in short: the settings and the objectives'
// values), or that it recommends none; "" without a search.
func searchLead(sc *engine.Scenario, res *engine.Result) string {
	s, r := sc.Search, res.Search
	if s == nil || r == nil {
		return ""
	}
	if r.Recommendation == nil {
		return fmt.Sprintf("The search from %s recommends no setting (the Search section says why).", s.Strategy)
	}
	lead := leadText(s, r, keeps(sc, r)) + " (the Search section says why)."
	if vals, ok := gainsNothing(sc, res); ok {
		lead += fmt.Sprintf(" Against %s as written (%s) it does better on no objective beyond the seeds' spread: keeping %s is as good on these seeds.", s.Strategy, strings.Join(vals, ", "), s.Strategy)
	}
	return lead
}

// gainsNothing reports whether the point res's search recommends, when it
// is not the searched strategy as the scenario has it, does better than
// that strategy on none of the objectives beyond the seeds' spread (both
// ran on the scenario's seeds: ranges that overlap, or with tails 5th to
// 95th percentiles), while that strategy meets every constraint: then
// keeping it is as good. It returns the strategy's objective values. A
// search across variants is left out: the strategy as written ran on the
// scenario only.
func gainsNothing(sc *engine.Scenario, res *engine.Result) ([]string, bool) {
	s, r := sc.Search, res.Search
	if s == nil || r == nil || r.Recommendation == nil || len(s.Across) > 0 || keeps(sc, r) || len(res.Sweep) > 0 {
		return nil, false
	}
	w := slices.IndexFunc(res.Strategies, func(st engine.StrategyResult) bool { return st.Name == s.Strategy })
	if w < 0 {
		return nil, false
	}
	tails := len(res.Seeds) >= TailSeeds
	written := res.Strategies[w]
	for _, c := range s.Constraints {
		if v, _ := written.Metrics.Metric(c.Metric); !c.Meets(v) {
			return nil, false
		}
	}
	p := r.Recommendation.SearchPoint
	point := engine.StrategyResult{Name: "recommended", Metrics: p.Metrics, Spread: p.Spread, Quantiles: p.Quantiles}
	pair := []engine.StrategyResult{point, written}
	var vals []string
	for _, o := range s.Objectives {
		m, _ := MetricOf(o.Metric)
		m.Better = 1
		if o.Goal == engine.GoalMin {
			m.Better = -1
		}
		if better(pair, m, 0, 1, tails) {
			return nil, false
		}
		x, _ := written.Metrics.Metric(o.Metric)
		vals = append(vals, lower(m.Label)+" "+sentenceValue(m, x))
	}
	return vals, true
}

// leadText says in short what search s recommends (r has a
// recommendation): "The search from C recommends 3 attempts, …: peak
// calls in 100 ms 25.4 calls, …", without a final stop. When the point is
// the search's strategy as it is (own), it says so first: "Keep what you
// have: the search from C recommends C as it is (3 attempts, …): …".
func leadText(s *engine.Search, r *engine.SearchResult, own bool) string {
	p := r.Frontier[0]
	what := settingsSentence(s, p.Settings)
	if own {
		return fmt.Sprintf("Keep what you have: the search from %s recommends %s as it is (%s): %s", s.Strategy, s.Strategy, what, strings.Join(objectiveValues(s, &p), ", "))
	}
	return fmt.Sprintf("The search from %s recommends %s: %s", s.Strategy, what, strings.Join(objectiveValues(s, &p), ", "))
}

// keeps reports whether the point search result r recommends is the
// search's strategy as the scenario has it (engine's IsSearchStrategy):
// then the recommendation is to keep what one has.
func keeps(sc *engine.Scenario, r *engine.SearchResult) bool {
	return r.Recommendation != nil && len(r.Frontier) > 0 && sc.IsSearchStrategy(r.Frontier[0].Settings)
}

// FrontierStrategy returns the strategy to ship of the frontier point of
// sc's search that the view names name ("C (search 1)", the
// recommendation, as the Search section and Add as strategy name it),
// from res, the result of sc: the searched strategy with the point's
// settings, under the searched strategy's own name, since it is that
// service's policy that is shipped. When no point is so named it returns
// nil and the points' names, quoted.
func FrontierStrategy(sc *engine.Scenario, res *engine.Result, name string) (*engine.Strategy, []string) {
	var points []string
	if sv := searchView(sc, res); sv != nil {
		for _, p := range sv.Points {
			if p.Name != name {
				points = append(points, strconv.Quote(p.Name))
				continue
			}
			var st engine.Strategy
			if json.Unmarshal(p.Strategy, &st) != nil {
				break
			}
			st.Name = sc.Search.Strategy
			return &st, nil
		}
	}
	return nil, points
}
