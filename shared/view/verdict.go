package view

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// headline are the metrics a verdict may be about when the scenario names
// no focus, in order of preference on ties; a result gives the worst seed
// of each.
var headline = engine.Headline

// focus returns the metrics a comparison is about: the scenario's
// report.focus, or the two headline metrics whose best and worst strategies
// differ most (relatively), among those where they differ beyond the seeds'
// spread; success_rate when none does.
func focus(sc *engine.Scenario, res *engine.Result) []string {
	if len(sc.Report.Focus) > 0 {
		return slices.Clone(sc.Report.Focus)
	}
	tails := len(res.Seeds) >= TailSeeds
	points := [][]engine.StrategyResult{res.Strategies}
	if len(res.Sweep) > 0 {
		points = points[:0]
		for _, p := range res.Sweep {
			points = append(points, p.Strategies)
		}
	}
	type scored struct {
		key   string
		score float64
	}
	var cands []scored
	for _, key := range headline {
		m, _ := MetricOf(key)
		var score float64
		for _, strats := range points {
			best, worst := extremes(strats, m, tails)
			if len(best) == 0 {
				continue
			}
			a, b := mean(strats[best[0]], key), mean(strats[worst[0]], key)
			if m.Unit == "%" {
				// 98% against 99.8% succeeding is 2% against 0.2% failing:
				// rates differ by what they leave out.
				a, b = 1-a, 1-b
			}
			score = math.Max(score, relDiff(a, b))
		}
		if score > 0 {
			cands = append(cands, scored{key, score})
		}
	}
	slices.SortStableFunc(cands, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	var out []string
	for _, c := range cands[:min(2, len(cands))] {
		out = append(out, c.key)
	}
	if len(out) == 0 {
		out = []string{"success_rate"}
	}
	return out
}

// verdict says which strategy does best on the focus metrics and what it
// pays for it, taking the spread over seeds into account: the first focus
// metric on which one strategy is clearly best, after saying that the
// strategies do not differ on the ones before it.
func verdict(strats []engine.StrategyResult, focus []string, runs int) string {
	if len(strats) == 0 {
		return ""
	}
	if len(strats) == 1 {
		m, _ := MetricOf(focus[0])
		return fmt.Sprintf("%s, the only strategy: %s %s; add another to compare.", strats[0].Name, lower(m.Label), format(m, mean(strats[0], m.Key), true))
	}
	tails := runs >= TailSeeds
	ranges := "ranges"
	if tails {
		ranges = "5th to 95th percentiles"
	}
	var before []string
	for _, key := range focus {
		m, _ := MetricOf(key)
		m = directed(m, strats)
		label := lower(m.Label)
		if none(strats, m) {
			// A count nothing happened to (a metric the result leaves
			// out, such as hedges without hedging): no winner.
			before = append(before, fmt.Sprintf("%s: none, whatever the strategy.", m.Label))
			continue
		}
		if m.Better == 0 {
			before = append(before, fmt.Sprintf("%s: %s.", m.Label, list(strats, m, indexes(len(strats)))))
			continue
		}
		best, worst := extremes(strats, m, tails)
		if len(best) == 0 {
			if allEqual(strats, m.Key) {
				before = append(before, fmt.Sprintf("Every strategy has the same %s: %s.", label, format(m, mean(strats[0], m.Key), true)))
			} else {
				before = append(before, fmt.Sprintf("No strategy is clearly best on %s: %s, and their %s over the %d seeds overlap.", label, list(strats, m, indexes(len(strats))), ranges, runs))
			}
			continue
		}
		return strings.Join(append(before, winner(strats, m, best, worst, runs)), " ")
	}
	return strings.Join(before, " ")
}

// winner says that the best strategies on m beat the worst, and at what
// price, comparing ranges over the seeds as the table shows them.
func winner(strats []engine.StrategyResult, m Metric, best, worst []int, runs int) string {
	tails := runs >= TailSeeds
	most, label := superlative(m)
	// Of strategies tied for best, the one that succeeds most often speaks
	// for them.
	sr, _ := MetricOf("success_rate")
	w, bottom := ranked(strats, sr)[0], worst[len(worst)-1]
	for _, i := range ranked(strats, sr) {
		if slices.Contains(best, i) {
			w = i
			break
		}
	}
	var b strings.Builder
	subject := "it"
	if len(best) == 1 {
		fmt.Fprintf(&b, "%s has the %s %s: %s against %s's %s", strats[w].Name, most, label,
			format(m, mean(strats[w], m.Key), true), strats[bottom].Name, format(m, mean(strats[bottom], m.Key), true))
	} else {
		subject = strats[w].Name
		fmt.Fprintf(&b, "%s share the %s %s (%s) against %s's %s", names(strats, best), most, label,
			list(strats, m, best), strats[bottom].Name, format(m, mean(strats[bottom], m.Key), true))
	}
	b.WriteString(price(strats, m, w, bottom, subject, tails))
	if m.FromGivingUp && succeedsLess(strats, w, tails) {
		fmt.Fprintf(&b, " Its %s is low partly because it gives up sooner.", label)
	}
	switch {
	case tails:
		fmt.Fprintf(&b, " Means over %d seeds; their 5th to 95th percentiles do not overlap.", runs)
	case runs > 1:
		fmt.Fprintf(&b, " Means over %d seeds; the ranges do not overlap.", runs)
	}
	return b.String()
}

// price compares the winner w with the worst strategy on the focus metric
// on what the winner might give up for it: the success rate, or the load on
// the dependency when the focus is a success rate; with tails, ties are
// within the 5th to 95th percentiles.
func price(strats []engine.StrategyResult, focus Metric, w, bottom int, subject string, tails bool) string {
	key := "success_rate"
	if focus.Key == "success_rate" || focus.Key == "affected_success_rate" {
		key = "dependency_calls"
	}
	g, _ := MetricOf(key)
	vw, vb := format(g, mean(strats[w], key), true), format(g, mean(strats[bottom], key), true)
	order := ranked(strats, g)
	top := order[0]
	switch {
	case key == "success_rate" && allEqual(strats, key) && mean(strats[w], key) == 0:
		return ". Every operation fails, whatever the strategy."
	case key == "success_rate" && allEqual(strats, key) && mean(strats[w], key) == 1:
		return ". Every operation succeeds, whatever the strategy."
	case key == "success_rate" && allEqual(strats, key):
		return fmt.Sprintf(". Every strategy succeeds on %s of operations.", vw)
	case key == "success_rate" && !tied(strats, key, w, top, tails):
		// The price is against the strategy that succeeds most often, not
		// only against the worst on the focus metric.
		return fmt.Sprintf(". The price: %s succeeds less often, %s against %s's %s.", subject, vw, strats[top].Name, format(g, mean(strats[top], key), true))
	case key == "success_rate" && !tied(strats, key, w, bottom, tails):
		return fmt.Sprintf(", and %s succeeds more often: %s against %s.", subject, vw, vb)
	case key == "success_rate":
		return fmt.Sprintf(", while succeeding as often as any: %s against %s's %s.", vw, strats[bottom].Name, vb)
	case tied(strats, key, w, top, tails):
		return fmt.Sprintf(", with as few or fewer calls reaching the %s: %s against %s.", dependency(strats), vw, vb)
	}
	return fmt.Sprintf(". The price: %s calls reach the %s against %s's %s.", vw, dependency(strats), strats[top].Name, format(g, mean(strats[top], key), true))
}

// sweepVerdict says which strategy is best on the focus metric at each value
// of a sweep.
func sweepVerdict(res *engine.Result, key string) string {
	m, _ := MetricOf(key)
	var points [][]engine.StrategyResult
	for _, p := range res.Sweep {
		points = append(points, p.Strategies)
	}
	m = directed(m, points...)
	tails := len(res.Seeds) >= TailSeeds
	most, label := superlative(m)
	var parts []string
	if len(res.Sweep[0].Strategies) == 1 {
		for _, p := range res.Sweep {
			parts = append(parts, fmt.Sprintf("%s → %s", sweepValue(p.Value), format(m, mean(p.Strategies[0], key), true)))
		}
		return fmt.Sprintf("%s of %s by %s: %s.", m.Label, res.Sweep[0].Strategies[0].Name, res.SweepPath, strings.Join(parts, "; "))
	}
	winners := map[string]int{}
	for _, p := range res.Sweep {
		best, _ := extremes(p.Strategies, m, tails)
		who := "no clear best"
		if len(best) > 0 {
			who = names(p.Strategies, best)
		}
		winners[who]++
		parts = append(parts, fmt.Sprintf("%s → %s", sweepValue(p.Value), who))
	}
	if len(winners) == 1 {
		for who := range winners {
			if who == "no clear best" {
				return fmt.Sprintf("No strategy is clearly best on %s at any value of %s.", lower(m.Label), res.SweepPath)
			}
			return fmt.Sprintf("%s %s the %s %s at every value of %s.", who, has(who), most, label, res.SweepPath)
		}
	}
	return fmt.Sprintf("The %s %s by %s: %s.", most, label, res.SweepPath, strings.Join(parts, "; "))
}

func has(who string) string {
	if strings.Contains(who, " and ") {
		return "have"
	}
	return "has"
}

func sweepValue(v any) string {
	if f, ok := v.(float64); ok {
		return fmt.Sprint(f)
	}
	if s, ok := v.(string); ok {
		return s
	}
	// An object or a list (a whole setting swept), or null (left out):
	// as JSON, as the sweep table shows it.
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func mean(st engine.StrategyResult, key string) float64 {
	v, _, _ := value(&st, key, false) // a recovery that did not come is worst
	return v
}

func allEqual(strats []engine.StrategyResult, key string) bool {
	for i := range strats {
		if mean(strats[i], key) != mean(strats[0], key) {
			return false
		}
	}
	return true
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// list writes "A 98.4%, B 99.7%" for the given strategies.
func list(strats []engine.StrategyResult, m Metric, which []int) string {
	var parts []string
	for _, i := range which {
		parts = append(parts, strats[i].Name+" "+format(m, mean(strats[i], m.Key), true))
	}
	return strings.Join(parts, ", ")
}

// names writes "A", "A and B" or "A, B and C".
func names(strats []engine.StrategyResult, which []int) string {
	var ns []string
	for _, i := range which {
		ns = append(ns, strats[i].Name)
	}
	if len(ns) < 2 {
		return strings.Join(ns, "")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

// dependency says "dependency", or "dependencies" when the plan calls
// several.
func dependency(strats []engine.StrategyResult) string {
	deps := map[string]bool{}
	for _, c := range strats[0].Calls {
		deps[c.Dependency] = true
	}
	if len(deps) > 1 {
		return "dependencies"
	}
	return "dependency"
}

// none reports whether m is a count that is zero for every strategy.
func none(strats []engine.StrategyResult, m Metric) bool {
	return m.Unit == "" && allEqual(strats, m.Key) && mean(strats[0], m.Key) == 0
}

// superlative says which end of m is best, and m as the sentence names it:
// "highest" "success rate", "lowest" "peak calls in 100 ms", "fewest"
// "failed operations".
func superlative(m Metric) (most, label string) {
	switch {
	case m.Key == "failed":
		return "fewest", "failed operations"
	case m.Better < 0:
		return "lowest", lower(m.Label)
	}
	return "highest", lower(m.Label)
}
