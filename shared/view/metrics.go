package view

import (
	"math"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// A Metric describes one of the engine's metrics for people (the engine
// keeps the list, so that its charts use the same words).
type Metric = engine.MetricInfo

// Groups of the metrics table, in order.
var Groups = engine.MetricGroups

// Metrics describes every metric, in the engine's order.
var Metrics = engine.MetricInfos

// MetricOf returns the description of the metric with the given JSON name.
func MetricOf(key string) (Metric, bool) { return engine.DescribeMetric(key) }

// value returns a strategy's mean of a metric and its range over the seeds
// as the table shows it: with tails (TailSeeds seeds or more), its 5th to
// 95th percentile where the result has them; else its lowest and highest
// (the mean twice with one seed). The marks and the verdict compare these.
// A recovery time that did not come (engine.NotRecovered) is worse than
// any: infinite, which format writes in words.
func value(st *engine.StrategyResult, key string, tails bool) (v, lo, hi float64) {
	if words, ok := st.Metrics.Missing(key); ok && strings.HasPrefix(words, engine.NotRecovered) {
		m, _ := MetricOf(key)
		x := math.Inf(-m.Better)
		return x, x, x
	}
	v, _ = st.Metrics.Metric(key)
	if q, ok := st.Quantiles[key]; ok && tails {
		return v, q.P5, q.P95
	}
	return withSpread(v, st.Spread, key)
}

// withSpread returns the mean v of metric key with its range over the
// seeds from spread, or v twice when it has none.
func withSpread(v float64, spread map[string]engine.MinMax, key string) (_, lo, hi float64) {
	if mm, ok := spread[key]; ok {
		return v, mm.Min, mm.Max
	}
	return v, v, v
}
