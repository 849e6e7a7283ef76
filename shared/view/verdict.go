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
// price, comparing ranges over the seeds as the table shows them. A
// strategy that is best on m only by failing many of its operations (see
// failsMany) is not called a winner: the verdict says so instead.
func winner(strats []engine.StrategyResult, m Metric, best, worst []int, runs int) string {
	tails := runs >= TailSeeds
	most, label := superlative(m)
	s := judged(strats)
	sr, _ := MetricOf(s)
	bottom := worst[len(worst)-1]
	var honest, failing []int
	for _, i := range best {
		if _, many := failsMany(strats, i, s, tails); many {
			failing = append(failing, i)
		} else {
			honest = append(honest, i)
		}
	}
	if len(honest) == 0 {
		return onlyByFailing(strats, m, best, bottom, runs)
	}
	// Of strategies tied for best, the one that succeeds most often (in
	// the affected window, when the run has one) speaks for them.
	w := honest[0]
	for _, i := range ranked(strats, sr) {
		if slices.Contains(honest, i) {
			w = i
			break
		}
	}
	var b strings.Builder
	subject := "it"
	vw, vb := formatBoth(m, mean(strats[w], m.Key), mean(strats[bottom], m.Key))
	if len(honest) == 1 {
		fmt.Fprintf(&b, "%s has the %s %s: %s against %s's %s", strats[w].Name, most, label, vw, strats[bottom].Name, vb)
	} else {
		subject = strats[w].Name
		l, vb := listAgainst(strats, m, m.Key, honest, bottom)
		fmt.Fprintf(&b, "%s share the %s %s (%s) against %s's %s", names(strats, honest), most, label, l, strats[bottom].Name, vb)
	}
	b.WriteString(price(strats, m, w, bottom, honest, subject, tails))
	b.WriteString(sideEffects(strats, honest))
	for _, i := range failing {
		top, _ := failsMany(strats, i, s, tails)
		vi, vt := formatBoth(sr, mean(strats[i], s), mean(strats[top], s))
		fmt.Fprintf(&b, " %s ties on %s only by failing operations: it succeeds on %s of them%s against %s's %s.",
			strats[i].Name, label, vi, window(s), strats[top].Name, vt)
	}
	if m.FromGivingUp && succeedsLess(strats, w, s, tails) {
		fmt.Fprintf(&b, " Its %s is low partly because it gives up sooner.", label)
	}
	b.WriteString(means(runs, label))
	return b.String()
}

// sideEffects says, of the winners, those whose dependency applied some
// of their non-idempotent operations more than once (duplicates) or
// applied some their client saw fail (applied_after_give_up), that the
// win is not clean: a success rate counts what the clients saw, not what
// the dependency did (a double charge is a success there). "" when none
// did either.
func sideEffects(strats []engine.StrategyResult, winners []int) string {
	d, _ := MetricOf("duplicates")
	a, _ := MetricOf("applied_after_give_up")
	var parts []string
	for _, i := range winners {
		dup, late := mean(strats[i], d.Key), mean(strats[i], a.Key)
		if dup > 0 {
			parts = append(parts, fmt.Sprintf("%s's operations %s extra %s (duplicates, such as double charges)",
				strats[i].Name, format(d, dup, true), plural(dup, "time", "times")))
		}
		if late > 0 {
			whose := strats[i].Name + "'s"
			if dup > 0 {
				whose = "its"
			}
			parts = append(parts, fmt.Sprintf("%s of %s failed operations all the same", format(a, late, true), whose))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " Not a clean win: the dependency applied " + strings.Join(parts, ", and ") + "."
}

// plural returns one when v is 1, else many.
func plural(v float64, one, many string) string {
	if v == 1 {
		return one
	}
	return many
}

// means says what the numbers of a verdict that names a winner on the
// metric labelled label are, with several seeds, and on which metric the
// seeds' ranges keep the winner apart: the verdict's other numbers (its
// price, a success rate "within the seeds' spread") may well overlap.
func means(runs int, label string) string {
	switch {
	case runs >= TailSeeds:
		return fmt.Sprintf(" Means over %d seeds; on %s their 5th to 95th percentiles do not overlap.", runs, label)
	case runs > 1:
		return fmt.Sprintf(" Means over %d seeds; on %s the ranges do not overlap.", runs, label)
	}
	return ""
}

// onlyByFailing says that the best strategies on m are best only by
// failing many of their operations, against the strategy that succeeds
// most often.
func onlyByFailing(strats []engine.StrategyResult, m Metric, best []int, bottom, runs int) string {
	most, label := superlative(m)
	s := judged(strats)
	sr, _ := MetricOf(s)
	top := ranked(strats, sr)[0] // the strategy that succeeds most often
	var b strings.Builder
	if len(best) == 1 {
		w := best[0]
		vw, vb := formatBoth(m, mean(strats[w], m.Key), mean(strats[bottom], m.Key))
		ws, ts := formatBoth(sr, mean(strats[w], s), mean(strats[top], s))
		fmt.Fprintf(&b, "%s has the %s %s only by failing operations: %s against %s's %s. It succeeds on %s of its operations%s against %s's %s.",
			strats[w].Name, most, label, vw, strats[bottom].Name, vb, ws, window(s), strats[top].Name, ts)
	} else {
		l, vb := listAgainst(strats, m, m.Key, best, bottom)
		ls, vt := listAgainst(strats, sr, s, best, top)
		fmt.Fprintf(&b, "%s share the %s %s (%s) only by failing operations, against %s's %s. They succeed on %s of their operations%s against %s's %s.",
			names(strats, best), most, label, l, strats[bottom].Name, vb, ls, window(s), strats[top].Name, vt)
	}
	b.WriteString(means(runs, label))
	return b.String()
}

// ManyFailed is the share of its operations (in the affected window, when
// the run has one) a strategy fails at least, with another strategy
// succeeding more often beyond the seeds' spread, for the verdict to say
// that it is best on the focus only by failing them rather than call it a
// winner.
const ManyFailed = 0.25

// failsMany reports whether strategy i fails many of its operations on the
// success metric s: at least ManyFailed of them, while the strategy that
// succeeds most often, top, succeeds more often beyond the seeds' spread.
// In a run where operations end degraded (a fallback answered) a success
// rate does not say how many failed, and none is said to fail many.
func failsMany(strats []engine.StrategyResult, i int, s string, tails bool) (top int, many bool) {
	sr, _ := MetricOf(s)
	top = ranked(strats, sr)[0]
	if slices.ContainsFunc(strats, degrades) {
		return top, false
	}
	return top, 1-mean(strats[i], s) >= ManyFailed && better(strats, sr, top, i, tails)
}

// degrades reports whether some of a strategy's operations end degraded.
func degrades(st engine.StrategyResult) bool { return st.Metrics.Degraded > 0 }

// judged returns the success metric a run is judged on: the success rate in
// the affected window when the run has one narrower than the whole run (a
// fault), else the success rate of all operations.
func judged(strats []engine.StrategyResult) string {
	for i := range strats {
		if a := mean(strats[i], "affected_operations"); a > 0 && a < mean(strats[i], "operations") {
			return "affected_success_rate"
		}
	}
	return "success_rate"
}

// window says where the success metric s is measured, as part of a
// sentence.
func window(s string) string {
	if s == "affected_success_rate" {
		return " in the affected window"
	}
	return ""
}

// better reports whether strategy a does better than b on m: its mean is
// better and their ranges over the seeds (with tails, their 5th to 95th
// percentiles) do not overlap.
func better(strats []engine.StrategyResult, m Metric, a, b int, tails bool) bool {
	return betterOf(ofStrategies(strats, tails), m, a, b)
}

func betterOf(get getter, m Metric, a, b int) bool {
	va, _, _ := get(a, m.Key)
	vb, _, _ := get(b, m.Key)
	if va == vb || tiedOf(get, m.Key, a, b) {
		return false
	}
	return (va > vb) == (m.Better > 0)
}

// formatBoth writes two values of m to be compared, with their unit: as
// format does, or with the table's precision when that would write them
// alike, so that a sentence never says one is higher than an equal-looking
// other.
func formatBoth(m Metric, a, b float64) (string, string) {
	fa, fb := format(m, a, true), format(m, b, true)
	if fa != fb || a == b {
		return fa, fb
	}
	unit := ""
	switch m.Unit {
	case "%":
	case "":
	default:
		unit = " " + m.Unit
	}
	return format(m, a, false) + unit, format(m, b, false) + unit
}

// listAgainst writes "A 98.4%, B 99.7%" for the strategies which, to be
// compared with other's value of m (read from key: a strategy's metric),
// and other's value, each with the table's precision when format would
// write one of them like other's.
func listAgainst(strats []engine.StrategyResult, m Metric, key string, which []int, other int) (string, string) {
	parts, fo := againstEach(strats, m, key, which, other)
	return strings.Join(parts, ", "), fo
}

// againstEach is listAgainst's entries, one per strategy of which.
func againstEach(strats []engine.StrategyResult, m Metric, key string, which []int, other int) ([]string, string) {
	vo := mean(strats[other], key)
	var parts []string
	fo := format(m, vo, true)
	for _, i := range which {
		a, b := formatBoth(m, mean(strats[i], key), vo)
		if b != fo {
			fo = b
		}
		parts = append(parts, strats[i].Name+" "+a)
	}
	return parts, fo
}

// price says what the winner w pays for being best on the focus metric,
// where the scenario is judged: failure is partial, so success is measured
// where clients meet it (AWS, "Availability and Beyond", Measuring
// availability): the success rate in the affected window when the run has
// one, else of all operations, against the strategy that succeeds most
// often; each call of the plan's success rate, when it has several; with
// tails, its worst seed; the latency of successful operations, when that is
// the trade (Brooker, "Exponential Backoff And Jitter", weighs work against
// completion time); and calls reaching the dependency, against only the
// strategies that succeed as often: fewer calls from failing more is no
// gain (Yanacek, "Using load shedding to avoid overload": goodput, not
// throughput). With no price to pay it says what the winner keeps. subject
// is "it" or, for the winners tied with w (best, w among them), w's name;
// each of them that succeeds less often is named with its success rate.
func price(strats []engine.StrategyResult, focus Metric, w, bottom int, best []int, subject string, tails bool) string {
	s := judged(strats)
	g, _ := MetricOf(s)
	where := window(s)
	top := ranked(strats, g)[0]
	success := focus.Key == "success_rate" || focus.Key == "affected_success_rate"
	var same string // what every strategy shares on s, when they do not differ on it
	if !success && allEqual(strats, s) {
		switch v := mean(strats[w], s); {
		case v == 0 && slices.ContainsFunc(strats, degrades):
			// "Fails" would be untrue of operations that end degraded.
			same = fmt.Sprintf("No operation%s succeeds, whatever the strategy.", where)
		case v == 0:
			same = fmt.Sprintf("Every operation%s fails, whatever the strategy.", where)
		case v == 1:
			same = fmt.Sprintf("Every operation%s succeeds, whatever the strategy.", where)
		default:
			same = fmt.Sprintf("Every strategy succeeds on %s of operations%s.", format(g, v, true), where)
		}
	}
	var costs []string
	var less []int // the winners that succeed less often than top
	for _, i := range best {
		if same == "" && focus.Key != s && better(strats, g, top, i, tails) {
			less = append(less, i)
		}
	}
	switch {
	case len(less) == 1 && less[0] == w:
		vw, vt := formatBoth(g, mean(strats[w], s), mean(strats[top], s))
		costs = append(costs, fmt.Sprintf("%s succeeds less often%s, %s against %s's %s", subject, where, vw, strats[top].Name, vt))
	case len(less) == 1:
		vi, vt := formatBoth(g, mean(strats[less[0]], s), mean(strats[top], s))
		costs = append(costs, fmt.Sprintf("%s succeeds less often%s, %s against %s's %s", strats[less[0]].Name, where, vi, strats[top].Name, vt))
	case len(less) > 1:
		l, vt := listAgainst(strats, g, s, less, top)
		costs = append(costs, fmt.Sprintf("%s succeed less often%s (%s) against %s's %s", names(strats, less), where, l, strats[top].Name, vt))
	}
	costs = append(costs, callCosts(strats, w, subject)...)
	if same == "" && len(costs) == 0 && tails {
		costs = append(costs, worstSeedCost(strats, g, w, top, subject)...)
	}
	if len(costs) == 0 && success {
		costs = append(costs, callsCost(strats, g, focus, w, tails)...)
	}
	if len(costs) == 0 && !strings.Contains(focus.Key, "latency") {
		costs = append(costs, latencyCost(strats, g, focus, w, subject, tails)...)
	}
	if len(costs) > 0 {
		return strings.TrimSuffix(". The price: "+strings.Join(costs, "; ")+". "+same, " ")
	}
	if same != "" {
		if gains := callGains(strats, w, bottom, subject); len(gains) > 0 {
			return ", and " + strings.Join(gains, ", and ") + ". " + same
		}
		return ". " + same
	}
	if success {
		c, _ := MetricOf("dependency_calls")
		if better(strats, c, w, bottom, tails) {
			vw, vb := formatBoth(c, mean(strats[w], c.Key), mean(strats[bottom], c.Key))
			return fmt.Sprintf(", with fewer calls reaching the %s: %s against %s's %s.", dependency(strats), vw, strats[bottom].Name, vb)
		}
		return "."
	}
	vw, vb := formatBoth(g, mean(strats[w], s), mean(strats[bottom], s))
	switch {
	case better(strats, g, w, bottom, tails):
		return fmt.Sprintf(", and %s succeeds more often%s: %s against %s's %s.", subject, where, vw, strats[bottom].Name, vb)
	case mean(strats[w], s) >= mean(strats[top], s) && mean(strats[w], s) >= mean(strats[bottom], s):
		return fmt.Sprintf(", while succeeding as often as any%s: %s against %s's %s.", where, vw, strats[bottom].Name, vb)
	}
	vw, vt := formatBoth(g, mean(strats[w], s), mean(strats[top], s))
	return fmt.Sprintf(", while succeeding%s as often as %s within the seeds' spread: %s against %s's %s.", where, strats[top].Name, vw, strats[top].Name, vt)
}

// callCosts say on which calls of the plan, when it has several, the
// winner w succeeds less often than the strategy that does best on that
// call, beyond the seeds' spread.
func callCosts(strats []engine.StrategyResult, w int, subject string) []string {
	if !hasCalls(strats) || len(strats[0].Calls) < 2 {
		return nil
	}
	sr := callSuccess()
	var out []string
	for k := range strats[0].Calls {
		get := func(i int, key string) (float64, float64, float64) { return callValue(&strats[i].Calls[k], key) }
		top := rankedOf(len(strats), get, sr)[0]
		if !betterOf(get, sr, top, w) {
			continue
		}
		out = append(out, callSentence(strats, k, w, top, subject, "succeed less often,"))
	}
	return out
}

// callGains say on which calls of the plan, when it has several, the
// winner w succeeds more often than bottom, the worst strategy on the
// focus, beyond the seeds' spread.
func callGains(strats []engine.StrategyResult, w, bottom int, subject string) []string {
	if !hasCalls(strats) || len(strats[0].Calls) < 2 {
		return nil
	}
	sr := callSuccess()
	var out []string
	for k := range strats[0].Calls {
		get := func(i int, key string) (float64, float64, float64) { return callValue(&strats[i].Calls[k], key) }
		if !betterOf(get, sr, w, bottom) {
			continue
		}
		out = append(out, callSentence(strats, k, w, bottom, subject, "succeed more often:"))
	}
	return out
}

// callSentence compares the success of call k of the plan between w, the
// subject, and other: "its calls to payment succeed less often, 71.2%
// against shared pool only's 92.1%", with how they compare in words.
func callSentence(strats []engine.StrategyResult, k, w, other int, subject, words string) string {
	sr := callSuccess()
	vw, _, _ := callValue(&strats[w].Calls[k], sr.Key)
	vo, _, _ := callValue(&strats[other].Calls[k], sr.Key)
	a, b := formatBoth(sr, vw, vo)
	return fmt.Sprintf("%s %s %s %s against %s's %s", possessive(subject), lower(callGroupName(&strats[0].Calls[k])), words, a, strats[other].Name, b)
}

// callSuccess is the success rate of one call of the plan.
func callSuccess() Metric {
	return CallMetrics[slices.IndexFunc(CallMetrics, func(m Metric) bool { return m.Key == "success_rate" })]
}

// worstSeedCost says, with tails, that the winner's worst seed on the
// success metric g is worse than the worst seed of the strategy that
// succeeds most often, top, and below top's 5th percentile (Dean and
// Barroso, "The Tail at Scale": the tail, not the mean, is what the
// unlucky see).
func worstSeedCost(strats []engine.StrategyResult, g Metric, w, top int, subject string) []string {
	ww, ok1 := strats[w].WorstSeeds[g.Key]
	wt, ok2 := strats[top].WorstSeeds[g.Key]
	q, ok3 := strats[top].Quantiles[g.Key]
	if !ok1 || !ok2 || !ok3 || w == top || ww.Value >= wt.Value || ww.Value >= q.P5 {
		return nil
	}
	a, b := formatBoth(g, ww.Value, wt.Value)
	return []string{fmt.Sprintf("on %s worst seed %s succeeds on %s of operations%s against %s on %s's worst",
		possessive(subject), subject, a, window(g.Key), b, strats[top].Name)}
}

// asOften reports whether strategies w and j succeed as often: tied on
// g, the success the price is judged on, and, when the verdict's focus is
// another success rate, on that too (gc-death-spiral: tied in the
// affected window, where every strategy fails, but a third as successful
// over the run, a strategy is no measure of what the winner pays: its
// faster successes come from failing).
func asOften(strats []engine.StrategyResult, g, focus Metric, w, j int, tails bool) bool {
	if j == w || better(strats, g, w, j, tails) || better(strats, g, j, w, tails) {
		return false
	}
	if focus.Key == g.Key || focus.Key != "success_rate" && focus.Key != "affected_success_rate" {
		return true
	}
	return !better(strats, focus, w, j, tails) && !better(strats, focus, j, w, tails)
}

// callsCost says, when the focus is a success rate, that the winner w
// sends more calls to the dependency than a strategy that succeeds as
// often (asOften): fewer calls from failing more is no gain.
func callsCost(strats []engine.StrategyResult, g, focus Metric, w int, tails bool) []string {
	c, _ := MetricOf("dependency_calls")
	fewest := -1
	for _, j := range ranked(strats, c) {
		if asOften(strats, g, focus, w, j, tails) && better(strats, c, j, w, tails) {
			fewest = j
			break
		}
	}
	if fewest < 0 {
		return nil
	}
	vw, vj := formatBoth(c, mean(strats[w], c.Key), mean(strats[fewest], c.Key))
	return []string{fmt.Sprintf("%s calls reach the %s against %s's %s, which succeeds as often%s", vw, dependency(strats), strats[fewest].Name, vj, window(g.Key))}
}

// latencyCost says that the winner's successful operations take longer at
// the 99th percentile than those of a strategy that succeeds as often
// (asOften), beyond the seeds' spread and by at least a fifth (Dean and
// Barroso, "The Tail at Scale").
func latencyCost(strats []engine.StrategyResult, g, focus Metric, w int, subject string, tails bool) []string {
	l, _ := MetricOf("success_latency_p99_ms")
	for _, j := range ranked(strats, l) {
		if !asOften(strats, g, focus, w, j, tails) {
			continue
		}
		vw, vj := mean(strats[w], l.Key), mean(strats[j], l.Key)
		if !better(strats, l, j, w, tails) || vw < 1.2*vj {
			return nil
		}
		a, b := formatBoth(l, vw, vj)
		return []string{fmt.Sprintf("%s successful operations are slower, %s at the 99th percentile against %s's %s, which succeeds as often%s", possessive(subject), a, strats[j].Name, b, window(g.Key))}
	}
	return nil
}

// possessive writes "its" for "it", else "A's".
func possessive(subject string) string {
	if subject == "it" {
		return "its"
	}
	return subject + "'s"
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
	winners := map[string]bool{} // who is best at each value, each once
	for _, p := range res.Sweep {
		best, _ := extremes(p.Strategies, m, tails)
		who := "no clear best"
		if len(best) > 0 {
			who = sweepWinners(p.Strategies, best, tails)
		}
		winners[who] = true
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

// sweepWinners names the best strategies at one value of a sweep: those
// that do not fail many of their operations (failsMany), or, when all of
// them do, the best saying that they are best only by failing them, with
// the success rate of the first and of the strategy that succeeds most
// often.
func sweepWinners(strats []engine.StrategyResult, best []int, tails bool) string {
	s := judged(strats)
	var honest []int
	for _, i := range best {
		if _, many := failsMany(strats, i, s, tails); !many {
			honest = append(honest, i)
		}
	}
	if len(honest) > 0 {
		return names(strats, honest)
	}
	sr, _ := MetricOf(s)
	top, _ := failsMany(strats, best[0], s, tails)
	vw, vt := formatBoth(sr, mean(strats[best[0]], s), mean(strats[top], s))
	return fmt.Sprintf("%s only by failing operations (%s succeeds on %s%s against %s's %s)", names(strats, best), strats[best[0]].Name, vw, window(s), strats[top].Name, vt)
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
	return andList(ns)
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
