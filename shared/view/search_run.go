//go:build !nosearch

// The view of a policy search. A build without searches (the Cloudflare
// Worker's nosearch) leaves it out; search_none.go is the other side of
// this pair.

package view

import (
	"encoding/json"
	"fmt"
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
		sv.Limits = lib.Sentence() + "."
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
	sv.Recommendation = recommendationText(s, r, len(res.Seeds))
	if r.Recommendation != nil && len(r.Frontier) > 0 {
		sv.Lead = leadText(s, r) + "."
	}
	if note := tieNote(s, r, len(res.Seeds)); note != "" {
		sv.Note = note
	}
	if r.Same != "" {
		sv.Summary += " " + r.Same + "."
	}
	if inert := inertText(r.Inert); inert != "" {
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
			st.Description = "found by the search from " + s.Strategy + ": " + strings.Join(settingsWords(s, p.Settings), ", ")
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
// values; "" when there are none.
func inertText(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = knobWords(p)
	}
	if len(names) == 1 {
		return fmt.Sprintf("The knob %s changed no metric on any seed: its values here are not a choice (it may act on a level that never retries).", names[0])
	}
	return fmt.Sprintf("The knobs %s changed no metric on any seed: their values here are not a choice (they may act on a level that never retries).", listWords(names))
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

// knobCell writes knob path's value for the table: a retry_level's in
// words ("every level", "layer 2"), any other as settingText does.
func knobCell(path string, raw json.RawMessage) string {
	if path == engine.RetryLevel {
		return RetryLevelCell(raw)
	}
	return settingText(raw)
}

// settingText writes a knob's value for the table: a string as itself,
// anything else (numbers, objects, null) as compact JSON.
func settingText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "null"
	}
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		return str
	}
	return string(raw)
}

// settingsWords writes a point's settings as "max_attempts 3, jitter.kind
// full", in the knobs' order.
func settingsWords(s *engine.Search, settings map[string]json.RawMessage) []string {
	var out []string
	for _, kn := range s.Knobs {
		out = append(out, kn.Path+" "+settingText(settings[kn.Path]))
	}
	return out
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
	return leadText(s, r) + " (the Search section says why)."
}

// leadText says in short what search s recommends (r has a
// recommendation): "The search from C recommends 3 attempts, …: peak
// calls in 100 ms 25.4 calls, …", without a final stop.
func leadText(s *engine.Search, r *engine.SearchResult) string {
	p := r.Frontier[0]
	return fmt.Sprintf("The search from %s recommends %s: %s", s.Strategy, settingsSentence(s, p.Settings), strings.Join(objectiveValues(s, &p), ", "))
}
