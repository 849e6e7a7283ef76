//go:build !nosearch

// Words for a search's settings and its recommendation; left out, with
// the rest of the search's view, from builds without searches.

package view

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// settingWords writes one knob's value for a sentence: "4 attempts",
// "backoff exponential 1 s → 10 s", "jitter full", "no budget",
// "budget ratio 10% over 1 s"; a path it has no words for as the path and
// the value ("backoff.base 200 ms").
func settingWords(path string, raw json.RawMessage) string {
	if path == engine.RetryLevel {
		return retryLevelWords(raw)
	}
	if rest, level, ok := levelKnob(path); ok {
		return settingWords(rest, raw) + " at " + level
	}
	if len(raw) == 0 || string(raw) == "null" {
		return "no " + path
	}
	if path == "max_attempts" {
		if n, err := strconv.Atoi(string(raw)); err == nil {
			if n == 1 {
				return "1 attempt"
			}
			return string(raw) + " attempts"
		}
	}
	// A kind is the object's name: "jitter full" for jitter.kind "full".
	return strings.TrimSuffix(path, ".kind") + " " + valueWords(raw)
}

// levelKnob reads a knob path on levels, "levels[*].F" or "levels[i].F":
// the field F, and the level in words ("every level", "the outermost
// level" for 0, "layer i"); ok is false for any other path.
func levelKnob(path string) (rest, level string, ok bool) {
	in, ok := strings.CutPrefix(path, "levels[")
	if !ok {
		return "", "", false
	}
	l, rest, ok := strings.Cut(in, "].")
	if !ok || rest == "" {
		return "", "", false
	}
	return rest, levelWords(l), true
}

// levelWords writes a level ("*", "0", "2") in words: "every level",
// "the outermost level", "layer 2".
func levelWords(l string) string {
	switch l {
	case "*":
		return "every level"
	case "0":
		return "the outermost level"
	}
	return "layer " + l
}

// knobWords names a knob in a sentence: its path, or for a knob on
// levels its field and the level ("max_attempts at every level"), and
// "the level that retries" for retry_level.
func knobWords(path string) string {
	if path == engine.RetryLevel {
		return "the level that retries"
	}
	if rest, level, ok := levelKnob(path); ok {
		return rest + " at " + level
	}
	return path
}

// retryLevelWords writes a value of the retry_level knob for a sentence:
// "retrying at every level", "retrying at layer 2 only", "retrying at
// no level".
func retryLevelWords(raw json.RawMessage) string {
	switch l := RetryLevelCell(raw); l {
	case "every level":
		return "retrying at every level"
	case "no level":
		return "retrying at no level"
	default:
		return "retrying at " + l + " only"
	}
}

// RetryLevelCell writes a value of the retry_level knob for a table:
// "every level", "no level", "the outermost level" (0) or "layer i".
func RetryLevelCell(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case string:
		switch x {
		case engine.RetryLevelEvery:
			return "every level"
		case engine.RetryLevelNone:
			return "no level"
		}
		return x
	case float64:
		return levelWords(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return string(raw)
}

// valueWords writes a knob's value without its path: a duration in
// milliseconds or seconds ("500 ms", "2 s"), a string as itself, an
// object by its kind and then its other fields ("exponential 1 s → 10 s",
// "ratio 10% over 1 s", "token_bucket 10 tokens, +0.1 per success"), an
// empty object as "defaults", a list as its elements joined by "and".
func valueWords(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return anyWords(v)
}

func anyWords(v any) string {
	switch x := v.(type) {
	case nil:
		return "none"
	case string:
		if d, err := engine.ParseDuration(x); err == nil && x != "0" {
			return durationWords(d.D())
		}
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		if len(x) == 0 {
			return "defaults" // an object with every field at its default
		}
		return objectWords(x)
	case []any:
		if len(x) == 0 {
			return "none"
		}
		ws := make([]string, len(x))
		for i, e := range x {
			ws[i] = anyWords(e)
		}
		return strings.Join(ws, " and ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// objectWords writes an object knob's value: its kind, then the fields a
// reader of that kind looks for first, then the others by name.
func objectWords(m map[string]any) string {
	kind, _ := m["kind"].(string)
	used := map[string]bool{"kind": true}
	get := func(k string) (any, bool) {
		v, ok := m[k]
		if ok {
			used[k] = true
		}
		return v, ok
	}
	var parts []string
	head := kind
	switch kind {
	case string(engine.BackoffExponential), string(engine.BackoffConstant), string(engine.BackoffLinear):
		if base, ok := get("base"); ok {
			head += " " + anyWords(base)
			if mx, ok := get("max"); ok {
				head += " → " + anyWords(mx)
			}
		}
		if mul, ok := get("multiplier"); ok {
			if f, _ := mul.(float64); f != engine.DefaultMultiplier {
				parts = append(parts, "×"+anyWords(mul))
			}
		}
	case string(engine.BudgetRatio):
		if r, ok := get("ratio"); ok {
			if f, ok := r.(float64); ok {
				head += " " + strconv.FormatFloat(f*100, 'g', -1, 64) + "%"
			}
			if w, ok := get("window"); ok {
				head += " over " + anyWords(w)
			}
		}
	case string(engine.BudgetTokenBucket):
		if t, ok := get("max_tokens"); ok {
			head += " " + anyWords(t) + " tokens"
			if r, ok := get("token_ratio"); ok {
				head += ", +" + anyWords(r) + " per success"
			}
		}
	}
	var rest []string
	for k := range m {
		if !used[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		parts = append(parts, k+" "+anyWords(m[k]))
	}
	out := strings.TrimSpace(strings.Join(append([]string{head}, parts...), ", "))
	if kind == "" {
		out = strings.TrimPrefix(out, ", ")
	}
	return out
}

// suggestions are the metrics each kind of knob (a knob path's first
// step) can change where the objectives do not tell its values apart:
// jitter spreads retries within short windows, backoff moves them in time,
// a budget or the attempts change how many calls reach the dependency,
// time-outs and hedging change how long operations take.
var suggestions = map[string][]string{
	"jitter":            {"peak_per_10ms", "retry_peak_per_10ms"},
	"backoff":           {"peak_per_10ms", "peak_per_1s", "success_latency_p99_ms"},
	"budget":            {"amplification", "dependency_calls", "retries"},
	"max_attempts":      {"amplification", "retries", "success_latency_p99_ms"},
	"attempt_timeout":   {"success_latency_p99_ms", "wasted_work"},
	"deadline":          {"latency_p99_ms", "success_rate"},
	"breaker":           {"dependency_calls", "recovery_s"},
	"hedging":           {"success_latency_p99_ms", "amplification"},
	"adaptive":          {"peak_per_1s", "amplification"},
	"throttle":          {"dependency_calls", "throttled", "recovery_s"},
	"client_rate_limit": {"dependency_calls", "rejections", "success_latency_p99_ms"},
	"retry_on":          {"success_rate", "amplification"},
	engine.RetryLevel:   {"amplification", "dependency_calls", "peak_per_1s"},
}

// knobKind returns the first step of a knob's path: "backoff" of
// "backoff.base", "layers" of "layers[0].max_attempts"; of a knob on
// levels, the first step of its field: "max_attempts" of
// "levels[*].max_attempts".
func knobKind(path string) string {
	if rest, _, ok := levelKnob(path); ok {
		path = rest
	}
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}

// listOr writes "a", "a or b" or "a, b or c".
func listOr(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// listNor writes "a", "neither a nor b" or "neither a, b nor c".
func listNor(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return "neither " + strings.Join(ws[:len(ws)-1], ", ") + " nor " + ws[len(ws)-1]
}

// countWords writes "1 seed" or "10 seeds".
func countWords(n int, one string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// recommendationText says which frontier point the search recommends and
// why, in words: its settings, the objectives and constraints by their
// labels, whether the constraints hold on every seed or on average only,
// which knobs make no difference among the points that tie with it, that
// one seed is not enough, and whether its range on the first objective
// overlaps the next distinct point's (compared as the table's marks
// compare strategies: from TailSeeds seeds, by their 5th to 95th
// percentiles). When the point is the search's strategy as it is (own),
// it starts by saying so: "Keep what you have: C as it is (3 attempts,
// …) gives …". It is "" when the search recommends none.
func recommendationText(s *engine.Search, r *engine.SearchResult, seeds int, own bool) string {
	if r.Recommendation == nil || len(r.Frontier) == 0 {
		return ""
	}
	p := r.Frontier[0]
	across := len(s.Across) > 0
	o := s.Objectives[0]
	m, _ := MetricOf(o.Metric)
	most := "highest"
	if o.Goal == engine.GoalMin {
		most = "lowest"
	}
	if across {
		most += " worst-case"
	}
	over := "on average over " + countWords(seeds, "seed")
	if seeds == 1 {
		over = "on its 1 seed"
	}
	x, _ := p.Metrics.Metric(o.Metric)
	detail := sentenceValue(m, x)
	if across {
		detail += fmt.Sprintf(" in %q, the variant that binds", p.Binding[o.Metric])
	}
	if _, lo, hi := withSpread(x, p.Spread, o.Metric); lo != hi {
		detail += fmt.Sprintf("; %s over the seeds", rangeWords(m, lo, hi))
	}
	var b strings.Builder
	what := settingsSentence(s, p.Settings)
	if own {
		what = fmt.Sprintf("Keep what you have: %s as it is (%s)", s.Strategy, what)
	}
	fmt.Fprintf(&b, "%s gives the %s %s %s (%s) of the %d frontier points", what, most, lower(m.Label), over, detail, len(r.Frontier))
	if len(s.Constraints) > 0 {
		var cs []string
		for _, c := range s.Constraints {
			cs = append(cs, constraintWords(c)+worstSeed(c, p, seeds))
		}
		b.WriteString(" that meet " + strings.Join(cs, " and "))
		if across {
			b.WriteString(" in every variant")
		}
		if seeds > 1 {
			b.WriteString(" on average over the seeds")
		}
	}
	fmt.Fprintf(&b, ", out of %d candidates", r.Evaluated)
	if across {
		fmt.Fprintf(&b, " on %d variants", len(s.Across))
	}
	var with []string
	for _, ob := range s.Objectives[1:] {
		mo, _ := MetricOf(ob.Metric)
		y, _ := p.Metrics.Metric(ob.Metric)
		w := fmt.Sprintf("%s at %s", lower(mo.Label), sentenceValue(mo, y))
		if across {
			w += fmt.Sprintf(" at worst (in %q)", p.Binding[ob.Metric])
		}
		with = append(with, w)
	}
	if len(with) > 0 {
		b.WriteString(", with " + strings.Join(with, " and "))
	}
	b.WriteString(".")
	ties := 1
	for ties < len(r.Frontier) && sameObjectives(s, &r.Frontier[0], &r.Frontier[ties]) {
		ties++
	}
	if ties > 1 {
		next := "the next frontier point"
		if ties > 2 {
			next = fmt.Sprintf("the next %d frontier points", ties-1)
		}
		fmt.Fprintf(&b, " It ties on every objective with %s: %s; none of them is a better choice on these objectives.", next, noDifference(s, r.Frontier[:ties]))
	}
	if seeds == 1 {
		b.WriteString(" It rests on 1 seed only: run more seeds before trusting it.")
	}
	if ties < len(r.Frontier) {
		q := r.Frontier[ties]
		if overlap, tails := overlaps(o.Metric, &p, &q, seeds); overlap && seeds > 1 {
			y, _ := q.Metrics.Metric(o.Metric)
			_, lo, hi := rangeOf(o.Metric, &q, seeds)
			rng := ""
			if lo != hi {
				rng = ", " + rangeWords(m, lo, hi)
			}
			what := "ranges over the seeds"
			if tails {
				what = "5th to 95th percentiles over the seeds"
			}
			fmt.Fprintf(&b, " Over these %d seeds it is not distinguishable on %s from the next distinct frontier point, %s (%s%s): their %s overlap.",
				seeds, lower(m.Label), settingsSentence(s, q.Settings), sentenceValue(m, y), rng, what)
		}
	}
	return b.String()
}

// objectiveValues says point p's value of each of the search's
// objectives: "peak calls in 100 ms 25.4 calls".
func objectiveValues(s *engine.Search, p *engine.SearchPoint) []string {
	var vals []string
	for _, o := range s.Objectives {
		m, _ := MetricOf(o.Metric)
		x, _ := p.Metrics.Metric(o.Metric)
		vals = append(vals, lower(m.Label)+" "+sentenceValue(m, x))
	}
	return vals
}

// tieNote says, when the search recommends none because every frontier
// point has the same objectives, what they have, which knobs make no
// difference among them, and which objectives the knobs could change
// instead (from the knobs' kinds: suggestions), those that differ among
// the points first. It is "" otherwise.
func tieNote(s *engine.Search, r *engine.SearchResult, seeds int) string {
	if r.Recommendation != nil || len(r.Frontier) < 2 || !sameObjectives(s, &r.Frontier[0], &r.Frontier[len(r.Frontier)-1]) {
		return ""
	}
	p := r.Frontier[0]
	vals := objectiveValues(s, &p)
	over := "on average over " + countWords(seeds, "seed")
	if seeds == 1 {
		over = "on 1 seed only"
	}
	if len(s.Across) > 0 {
		over = "in their worst variants " + over
	}
	var b strings.Builder
	fmt.Fprintf(&b, "No objective separates the %d frontier points: all have %s %s", len(r.Frontier), strings.Join(vals, " and "), over)
	if n := r.Feasible - len(r.Frontier); n > 0 {
		fmt.Fprintf(&b, ", and the other %s of the last round that meet the constraints do worse", countWords(n, "candidate"))
	}
	fmt.Fprintf(&b, ". Among them, %s. None is recommended: choose objectives the knobs change", noDifference(s, r.Frontier))
	if sug := suggest(s, r.Frontier, r.Inert); sug != "" {
		b.WriteString(", such as " + sug)
	}
	b.WriteString(".")
	return b.String()
}

// settingsSentence writes a point's settings in words, in the knobs'
// order: "4 attempts, backoff exponential 1 s → 10 s, jitter full, no budget".
//
// Consecutive knobs on one level say it once, after the last of them:
// "3 attempts, jitter none, no budget at every level, retrying at layer
// 2 only".
func settingsSentence(s *engine.Search, settings map[string]json.RawMessage) string {
	// retry_level, set last, leaves one attempt at every level but the
	// one it keeps: attempts set on every level, or on another, say so.
	single := ""
	for _, kn := range s.Knobs {
		if kn.Path == engine.RetryLevel {
			if c := RetryLevelCell(settings[kn.Path]); c != "every level" {
				single = c
			}
		}
	}
	var out []string
	for i, kn := range s.Knobs {
		rest, level, ok := levelKnob(kn.Path)
		switch {
		case single == "" || kn.Path == engine.RetryLevel:
		case ok && level == "every level" && attemptsField(rest):
			if single != "no level" { // else "retrying at no level" says it
				out = append(out, settingWords(rest, settings[kn.Path])+" at "+single+", 1 attempt elsewhere")
			}
			continue
		case !ok && kn.Path == "max_attempts" && single != "the outermost level":
			out = append(out, "1 attempt at the outermost level")
			continue
		}
		if !ok {
			out = append(out, settingWords(kn.Path, settings[kn.Path]))
			continue
		}
		w := settingWords(rest, settings[kn.Path])
		if i+1 == len(s.Knobs) || !sameLevel(s.Knobs[i+1].Path, level) {
			w += " at " + level
		}
		out = append(out, w)
	}
	return strings.Join(out, ", ")
}

// attemptsField reports whether a level's field f is one retry_level
// overrides on the levels it does not keep: max_attempts, hedging.
func attemptsField(f string) bool {
	return f == "max_attempts" || f == "hedging" || strings.HasPrefix(f, "hedging.")
}

// sameLevel reports whether knob path is on levels, at level (in words).
func sameLevel(path, level string) bool {
	_, l, ok := levelKnob(path)
	return ok && l == level
}

// constraintWords writes a constraint by its metric's label:
// "peak calls in 100 ms ≤ 89.4 calls".
func constraintWords(c engine.Constraint) string {
	m, _ := MetricOf(c.Metric)
	op := "≤"
	if c.Op == engine.OpAtLeast {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %s", lower(m.Label), op, format(m, c.Value, true))
}

// worstSeed writes " (its worst seed: 99.05%)" when point p meets
// constraint c on average but not on its worst seed, else "".
func worstSeed(c engine.Constraint, p engine.SearchPoint, seeds int) string {
	mm, ok := p.Spread[c.Metric]
	if !ok || seeds < 2 {
		return ""
	}
	w, bad := mm.Max, mm.Max > c.Value
	if c.Op == engine.OpAtLeast {
		w, bad = mm.Min, mm.Min < c.Value
	}
	if !bad {
		return ""
	}
	m, _ := MetricOf(c.Metric)
	return fmt.Sprintf(" (its worst seed: %s)", sentenceValue(m, w))
}

// sameObjectives reports whether points a and b have the same mean (or,
// across variants, worst case) on every objective, as the engine compares
// them.
func sameObjectives(s *engine.Search, a, b *engine.SearchPoint) bool {
	for _, o := range s.Objectives {
		x, _ := a.Metrics.Metric(o.Metric)
		y, _ := b.Metrics.Metric(o.Metric)
		if x != y {
			return false
		}
	}
	return true
}

// rangeOf returns point p's mean of metric key and the range the table's
// marks would compare: from TailSeeds seeds its 5th to 95th percentiles
// (tails true), else its lowest and highest over the seeds. A recovery
// time that did not come is worse than any, as value has it.
func rangeOf(key string, p *engine.SearchPoint, seeds int) (v, lo, hi float64) {
	if words, ok := p.Metrics.Missing(key); ok && strings.HasPrefix(words, engine.NotRecovered) {
		m, _ := MetricOf(key)
		x := math.Inf(-m.Better)
		return x, x, x
	}
	v, _ = p.Metrics.Metric(key)
	if q, ok := p.Quantiles[key]; ok && seeds >= TailSeeds {
		return v, q.P5, q.P95
	}
	return withSpread(v, p.Spread, key)
}

// overlaps reports whether points a and b cannot be told apart on metric
// key over the seeds, as the table's marks decide (tiedOf), and whether
// that compared their percentiles.
func overlaps(key string, a, b *engine.SearchPoint, seeds int) (overlap, tails bool) {
	pts := []*engine.SearchPoint{a, b}
	get := func(i int, k string) (float64, float64, float64) { return rangeOf(k, pts[i], seeds) }
	_, ok := a.Quantiles[key]
	return tiedOf(get, key, 0, 1), ok && seeds >= TailSeeds
}

// noDifference says which knobs make no difference among the points (each
// knob whose every value, put in any of the points, gives another of
// them), and which others take several values among them: "jitter and
// budget change neither A nor B here, and max_attempts 4 or 6 does the
// same", or, for a knob that takes all its values but not in every
// combination, "backoff takes each of its values among them, in some
// combinations only".
func noDifference(s *engine.Search, points []engine.SearchPoint) string {
	key := func(settings map[string]json.RawMessage, k int, v json.RawMessage) string {
		var parts []string
		for i, kn := range s.Knobs {
			val := settings[kn.Path]
			if i == k {
				val = v
			}
			parts = append(parts, string(val))
		}
		return strings.Join(parts, "\x00")
	}
	in := map[string]bool{}
	for _, p := range points {
		in[key(p.Settings, -1, nil)] = true
	}
	var free, some, every []string
	for k, kn := range s.Knobs {
		var seen []string
		for _, p := range points {
			if v := string(p.Settings[kn.Path]); !slices.Contains(seen, v) {
				seen = append(seen, v)
			}
		}
		if len(seen) < 2 {
			continue
		}
		all := true
		for _, p := range points {
			for _, raw := range kn.Values {
				v, err := json.Marshal(json.RawMessage(raw))
				if err != nil || !in[key(p.Settings, k, v)] {
					all = false
				}
			}
		}
		if all {
			free = append(free, knobWords(kn.Path))
			continue
		}
		if len(seen) == len(kn.Values) {
			every = append(every, knobWords(kn.Path))
			continue
		}
		var words []string
		for _, v := range seen {
			switch {
			case kn.Path == engine.RetryLevel:
				words = append(words, RetryLevelCell(json.RawMessage(v)))
			case v == "null":
				words = append(words, "none")
			default:
				words = append(words, valueWords(json.RawMessage(v)))
			}
		}
		some = append(some, knobWords(kn.Path)+" "+listOr(words))
	}
	var labels []string
	for _, o := range s.Objectives {
		m, _ := MetricOf(o.Metric)
		labels = append(labels, lower(m.Label))
	}
	var parts []string
	if len(free) > 0 {
		subject := listWords(free)
		switch {
		case len(labels) == 1 && len(free) == 1:
			parts = append(parts, fmt.Sprintf("%s does not change %s here", subject, labels[0]))
		case len(labels) == 1:
			parts = append(parts, fmt.Sprintf("%s do not change %s here", subject, labels[0]))
		case len(free) == 1:
			parts = append(parts, fmt.Sprintf("%s changes %s here", subject, listNor(labels)))
		default:
			parts = append(parts, fmt.Sprintf("%s change %s here", subject, listNor(labels)))
		}
	}
	if len(some) > 0 {
		verb := "does"
		if len(some) > 1 {
			verb = "do"
		}
		parts = append(parts, fmt.Sprintf("%s %s the same", listWords(some), verb))
	}
	if len(every) > 0 {
		verb := "takes"
		if len(every) > 1 {
			verb = "take"
		}
		parts = append(parts, fmt.Sprintf("%s %s each of %s values among them, in some combinations only", listWords(every), verb, its(len(every))))
	}
	return strings.Join(parts, ", and ")
}

// suggest names up to three metrics the search's knobs could change, one
// for each kind of knob that takes several values among the points (from
// suggestions, by the knob path's first step), other than the
// objectives: of each kind's, the first that differs among the points,
// with its range there, else the first.
func suggest(s *engine.Search, points []engine.SearchPoint, inert []string) string {
	var keys, out []string
	for _, kn := range s.Knobs {
		varies := slices.ContainsFunc(points, func(p engine.SearchPoint) bool {
			return string(p.Settings[kn.Path]) != string(points[0].Settings[kn.Path])
		})
		if !varies || slices.Contains(inert, kn.Path) {
			continue // an inert knob changed no metric: it cannot change this one
		}
		pick, text := "", ""
		for _, k := range suggestions[knobKind(kn.Path)] {
			if slices.Contains(keys, k) || slices.ContainsFunc(s.Objectives, func(o engine.Objective) bool { return o.Metric == k }) {
				continue
			}
			m, _ := MetricOf(k)
			if slices.ContainsFunc(points, func(p engine.SearchPoint) bool { _, missing := p.Metrics.Missing(k); return missing }) {
				continue // no value to give a range on some point (see rangeOf)
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, p := range points {
				x, _ := p.Metrics.Metric(k)
				lo, hi = min(lo, x), max(hi, x)
			}
			if lo != hi { // only a metric the points show it changing
				pick, text = k, fmt.Sprintf("%s, which %s can change (from %s among these points)", lower(m.Label), knobWords(kn.Path), strings.Replace(rangeWords(m, lo, hi), "–", " to ", 1))
				break
			}
		}
		if pick != "" && len(out) < 3 {
			keys, out = append(keys, pick), append(out, text)
		}
	}
	return listOr(out)
}

// its says "its" for one and "their" for several.
func its(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// sentenceValue writes a metric's value for a sentence: a rate with two
// decimals, as the frontier table writes it (99.05%, not 99%, beside a
// bound of 99.1%), anything else with its unit.
func sentenceValue(m Metric, v float64) string {
	if m.Unit == "%" {
		return format(m, v, false)
	}
	return format(m, v, true)
}

// rangeWords writes a range over the seeds: "99.68%–100.00%", "20–30 calls".
func rangeWords(m Metric, lo, hi float64) string {
	if m.Unit == "%" {
		return format(m, lo, false) + "–" + format(m, hi, false)
	}
	return format(m, lo, false) + "–" + format(m, hi, true)
}
