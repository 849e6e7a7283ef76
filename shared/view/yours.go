package view

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// yoursSentences say how each of the scenario's report.yours does against
// the other strategies, one sentence each, so that a user who brought a
// policy reads first about it, whatever does best: on the success rate
// the run is judged on (see judged), then on the first focus metric when
// that is another, each as "behind", "ahead of" or no clear difference
// from every other strategy by the rule the table's marks use (means whose
// ranges over the seeds do not overlap, see better); then whether the
// dependency recovered under load with it, and whether it meets the
// scenario's requirements (report.thresholds) on every seed.
func yoursSentences(sc *engine.Scenario, strats []engine.StrategyResult, focus []string, runs int) []string {
	if len(sc.Report.Yours) == 0 || len(strats) == 0 {
		return nil
	}
	tails := runs >= TailSeeds
	s := judged(strats)
	keys := []string{s}
	if f := focus[0]; f != s && f != "success_rate" && f != "affected_success_rate" {
		keys = append(keys, f)
	}
	var out []string
	for _, name := range sc.Report.Yours {
		y := slices.IndexFunc(strats, func(st engine.StrategyResult) bool { return st.Name == name })
		if y < 0 {
			continue
		}
		var parts []string
		for _, key := range keys {
			m, _ := MetricOf(key)
			m = directed(m, strats)
			if p := standing(strats, m, y, tails); p != "" {
				parts = append(parts, p)
			}
		}
		b := &strings.Builder{}
		fmt.Fprintf(b, "Your policy %s: %s.", name, strings.Join(parts, "; "))
		b.WriteString(recoveredWith(strats[y], runs))
		b.WriteString(requirementsMet(strats[y], runs))
		out = append(out, b.String())
	}
	if len(out) > 0 && len(strats) > 1 && runs > 1 {
		if tails {
			out = append(out, fmt.Sprintf("Means over %d seeds; ahead and behind where the 5th to 95th percentiles do not overlap.", runs))
		} else {
			out = append(out, fmt.Sprintf("Means over %d seeds; ahead and behind where the ranges do not overlap.", runs))
		}
	}
	return out
}

// standing says strategy y's value of m and where it stands against each
// other strategy: "success rate in the affected window 81.2%, behind A
// 99.9% and B 99.1%, ahead of C; no clear difference from D". "" when m
// is a count that is zero for every strategy or has no direction.
func standing(strats []engine.StrategyResult, m Metric, y int, tails bool) string {
	if none(strats, m) || m.Better == 0 {
		return ""
	}
	text := lower(m.Label) + " " + format(m, mean(strats[y], m.Key), true)
	if len(strats) == 1 {
		return text
	}
	var behind, ahead, level []int
	for _, i := range ranked(strats, m) {
		switch {
		case i == y:
		case better(strats, m, i, y, tails):
			behind = append(behind, i)
		case better(strats, m, y, i, tails):
			ahead = append(ahead, i)
		default:
			level = append(level, i)
		}
	}
	var says []string
	switch {
	case len(ahead) == len(strats)-1:
		return text + ", ahead of every other strategy here"
	case len(behind) == len(strats)-1 && len(behind) > 1:
		l, vy := listAgainst(strats, m, m.Key, behind, y)
		return lower(m.Label) + " " + vy + ", behind every other strategy here (" + l + ")"
	case len(level) == len(strats)-1:
		return text + ", with no clear difference from the others (" + list(strats, m, level) + ")"
	}
	if len(behind) > 0 {
		each, vy := againstEach(strats, m, m.Key, behind, y)
		text = lower(m.Label) + " " + vy
		says = append(says, "behind "+andList(each))
	}
	if len(ahead) > 0 {
		says = append(says, "ahead of "+names(strats, ahead))
	}
	if len(level) > 0 {
		says = append(says, "no clear difference from "+names(strats, level))
	}
	return text + ", " + strings.Join(says, ", ")
}

// andList writes "a", "a and b" or "a, b and c".
func andList(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// recoveredWith says whether the dependency recovered under load (see
// engine's recovered) with strategy st on every seed, "" where recovery
// is not judged.
func recoveredWith(st engine.StrategyResult, runs int) string {
	r := st.Metrics.Recovered
	if !r.Applies() {
		return ""
	}
	n := int(math.Round(float64(r) * float64(runs)))
	switch {
	case runs == 1 && n == 1:
		return " The dependency recovered under load with it."
	case runs == 1:
		return " With it, the dependency did not recover under load: the storm outlasted the fault."
	case n == runs:
		return fmt.Sprintf(" The dependency recovered under load with it on all %d seeds.", runs)
	case n == 0:
		return fmt.Sprintf(" With it, the dependency did not recover under load on any of the %d seeds: the storm outlasted the fault.", runs)
	}
	return fmt.Sprintf(" With it, the dependency did not recover under load on %d of the %d seeds.", runs-n, runs)
}

// requirementsMet says whether strategy st meets the scenario's
// requirements (report.thresholds) on every seed, naming each it misses
// and on how many seeds; "" without requirements.
func requirementsMet(st engine.StrategyResult, runs int) string {
	if len(st.Thresholds) == 0 {
		return ""
	}
	var missed []string
	for _, th := range st.Thresholds {
		if th.Crossed == 0 {
			continue
		}
		m, _ := MetricOf(th.Metric)
		side := "above"
		if th.Op == engine.OpAtLeast {
			side = "below"
		}
		what := fmt.Sprintf("%s %s %s", lower(m.Label), side, format(m, th.Value, true))
		if th.Seeds == 1 {
			missed = append(missed, what)
		} else {
			missed = append(missed, fmt.Sprintf("%s on %d of the %d seeds", what, th.Crossed, th.Seeds))
		}
	}
	all := len(st.Thresholds)
	every := "on every seed"
	if runs == 1 {
		every = "on its one seed"
	}
	switch {
	case len(missed) == 0 && all == 1:
		return " It meets the requirement " + every + "."
	case len(missed) == 0:
		return fmt.Sprintf(" It meets all %d requirements %s.", all, every)
	case all == 1:
		return " It misses the requirement: " + missed[0] + "."
	}
	return fmt.Sprintf(" It misses %d of the %d requirements: %s.", len(missed), all, strings.Join(missed, "; "))
}
