package view

import (
	"fmt"
	"strconv"

	"github.com/retrylab/retrylab/shared/engine"
)

// TailSeeds is how many seeds a comparison needs before its table's ranges
// are the 5th to 95th percentiles over the seeds instead of the lowest and
// highest: with fewer, those percentiles are the extremes or next to them.
const TailSeeds = 20

// Worst names, for the focus metric, the seed on which each strategy does
// worst, each with the query that opens exactly that run (the scenario on
// that seed alone: "seed=S&runs=1"; the playground's address takes it
// after its own "s=").
type Worst struct {
	Metric string      `json:"metric"`
	Text   string      `json:"text"`
	Seeds  []WorstSeed `json:"seeds"`
}

// A WorstSeed is one strategy's worst seed on the focus metric: Value is
// the metric on that seed, for people.
type WorstSeed struct {
	Strategy string `json:"strategy"`
	Seed     int64  `json:"seed"`
	Value    string `json:"value"`
	Query    string `json:"query"`
}

// worstOf returns the worst seeds of the focus metric key, or nil when the
// result has none for it (one seed, a sweep, or a metric without a
// direction).
func worstOf(strats []engine.StrategyResult, key string) *Worst {
	m, _ := MetricOf(key)
	w := &Worst{Metric: key, Text: "Worst seed for " + lower(m.Label) + ":"}
	for _, st := range strats {
		sv, ok := st.WorstSeeds[key]
		if !ok {
			return nil
		}
		w.Seeds = append(w.Seeds, WorstSeed{Strategy: st.Name, Seed: sv.Seed, Value: format(m, sv.Value, true),
			Query: "seed=" + strconv.FormatInt(sv.Seed, 10) + "&runs=1"})
	}
	if len(w.Seeds) == 0 {
		return nil
	}
	return w
}

// thresholdSentences say, for each strategy and each of the scenario's
// report.thresholds, on what share of the seeds it crosses it: "full has
// peak calls in 10 ms above 150 calls on 3.1% of the 1000 seeds (31)."
func thresholdSentences(strats []engine.StrategyResult) []string {
	rate, _ := MetricOf("success_rate")
	var out []string
	for _, st := range strats {
		for _, th := range st.Thresholds {
			m, _ := MetricOf(th.Metric)
			side := "above"
			if th.Op == engine.OpAtLeast {
				side = "below"
			}
			what := fmt.Sprintf("%s %s %s", lower(m.Label), side, format(m, th.Value, true))
			switch {
			case th.Seeds == 1 && th.Crossed == 1:
				out = append(out, fmt.Sprintf("On its one seed, %s has %s.", st.Name, what))
			case th.Seeds == 1:
				out = append(out, fmt.Sprintf("On its one seed, %s does not have %s.", st.Name, what))
			default:
				out = append(out, fmt.Sprintf("%s has %s on %s of the %d seeds (%d).", st.Name, what,
					format(rate, th.Share, true), th.Seeds, th.Crossed))
			}
		}
	}
	return out
}

// tailSpread returns the range a cell shows for strategy st's metric key
// when there are TailSeeds seeds or more: its 5th to 95th percentile, or
// "" when they are equal; ok is false when the result has no quantiles for
// it.
func tailSpread(st *engine.StrategyResult, m Metric) (spread string, ok bool) {
	q, ok := st.Quantiles[m.Key]
	if !ok {
		return "", false
	}
	if q.P5 == q.P95 {
		return "", true
	}
	return format(m, q.P5, false) + "–" + format(m, q.P95, false), true
}
