package view

import (
	"slices"
	"strings"

	"github.com/retrylab/retrylab/shared/engine"
)

// CallMetrics describe the metrics of one call of the plan
// (engine.CallMetrics), in the engine's order: those that mean the same as
// a strategy's metric take its words; the others, which count plan calls
// rather than operations, have their own.
var CallMetrics = []Metric{
	{Key: "calls", Label: "Calls started", Explain: "Plan calls started: one per operation that got to this call's step and makes it.", Better: 0},
	{Key: "succeeded", Label: "Succeeded", Explain: "Calls that ended in success, after any retries.", Better: 0},
	{Key: "fell_back", Label: "Fell back", Explain: "Calls that failed and the strategy's fallback answered for: the operation went on without their part (degraded).", Better: 0},
	{Key: "failed", Label: "Failed", Explain: "Calls that failed with no fallback, failing their operation.", Better: 0},
	{Key: "abandoned", Label: "Abandoned", Explain: "Calls left unfinished when another call of their operation failed first.", Better: 0},
	{Key: "success_rate", Label: "Success rate", Unit: "%", Explain: "Share of the calls that ended (abandoned ones left out) that succeeded.", Better: 1},
	{Key: "attempts", Label: "Attempts", Explain: "Attempts the client (level 0) made for this call: first attempts plus retries.", Better: -1},
	engineMetric("dependency_calls", "Calls of this plan call that arrived at its dependency (through every layer)."),
	engineMetric("rejections", "Calls of this plan call its dependency refused at once (its queue full, its queue discipline dropping them, its rate limiter without a token, its concurrency limit reached)."),
	engineMetric("shed", ""),
	engineMetric("fast_failed", ""),
	engineMetric("pool_rejected", "Calls of this plan call the client's pool refused: no free slot and the line full, or waited as long as allowed."),
	engineMetric("bulkhead_rejected", "Calls of this plan call the bulkhead refused: no free slot and the line full, or waited as long as allowed."),
	{Key: "latency_p50_ms", Label: "Latency p50", Unit: "ms", Explain: "Median time from the call's start (its wait for a pool or bulkhead slot included) to its end, failed calls included.", Better: -1, FromGivingUp: true},
	{Key: "latency_p99_ms", Label: "Latency p99", Unit: "ms", Explain: "99th percentile time from the call's start (its wait for a pool or bulkhead slot included) to its end, failed calls included.", Better: -1, FromGivingUp: true},
	{Key: "goodput_per_s", Label: "Goodput", Unit: "calls/s", Explain: "Successful calls per second of the workload's duration.", Better: 1},
}

// engineMetric is the engine's description of a metric that means the same
// for one plan call, with the explanation said for the call when given.
func engineMetric(key, explain string) Metric {
	m, ok := engine.DescribeMetric(key)
	if !ok {
		panic("view: the engine has no metric " + key)
	}
	if explain != "" {
		m.Explain = explain
	}
	return m
}

// callValue returns a plan call's mean of a metric and its range over the
// seeds.
func callValue(c *engine.CallResult, key string) (v, lo, hi float64) {
	v, _ = c.Metrics.Metric(key)
	return withSpread(v, c.Spread, key)
}

// hasCalls reports whether every strategy reports the same calls of the
// plan (they all run the workload's plan), one group each.
func hasCalls(strats []engine.StrategyResult) bool {
	return sameParts(strats, func(st *engine.StrategyResult) []string {
		var names []string
		for _, c := range st.Calls {
			names = append(names, c.Name)
		}
		return names
	})
}

// sameParts reports whether every strategy has the same parts (calls of
// the plan, or fleets), by name, and there are some.
func sameParts(strats []engine.StrategyResult, names func(*engine.StrategyResult) []string) bool {
	if len(strats) == 0 {
		return false
	}
	first := names(&strats[0])
	if len(first) == 0 {
		return false
	}
	for i := range strats {
		if !slices.Equal(names(&strats[i]), first) {
			return false
		}
	}
	return true
}

// callGroupName names a plan call's group: "Calls to payment", or with a
// name of its own or a class other than the default, "Call recs-low to
// recs, class sheddable".
func callGroupName(c *engine.CallResult) string {
	name := "Calls to " + c.Dependency
	if c.Name != c.Dependency {
		name = "Call " + c.Name + " to " + c.Dependency
	}
	if c.Class != "" && c.Class != engine.ClassCritical {
		name += ", class " + strings.ReplaceAll(string(c.Class), "_", " ")
	}
	return name
}

// callGroups builds one group of the metrics table per call of the plan,
// and the labels of the rows it folds away (zero for every strategy).
func callGroups(strats []engine.StrategyResult) ([]Group, []string) {
	if !hasCalls(strats) {
		return nil, nil
	}
	var groups []Group
	var folded []string
	for k := range strats[0].Calls {
		get := func(i int, key string) (float64, float64, float64) { return callValue(&strats[i].Calls[k], key) }
		g := Group{Name: callGroupName(&strats[0].Calls[k]), Call: strats[0].Calls[k].Name}
		groups, folded = addPartGroup(groups, folded, g, CallMetrics, len(strats), get)
	}
	return groups, folded
}

// addPartGroup fills group g with a row per metric (folding those zero
// for every strategy away, by label) and adds it to groups unless it is
// left empty.
func addPartGroup(groups []Group, folded []string, g Group, metrics []Metric, n int, get getter) ([]Group, []string) {
	for _, m := range metrics {
		m.Group = g.Name
		r, zero := rowOf(n, get, m, "success_rate")
		if zero {
			folded = append(folded, m.Label+" ("+lower(g.Name)+")")
			continue
		}
		g.Rows = append(g.Rows, r)
	}
	if len(g.Rows) > 0 {
		groups = append(groups, g)
	}
	return groups, folded
}

// FleetMetrics describe the metrics of one fleet (engine.FleetMetrics),
// in the engine's order, in the words of the strategy's metrics of the
// same name: they count that fleet's operations only.
var FleetMetrics = []Metric{
	engineMetric("operations", "Operations this fleet's clients started."),
	engineMetric("succeeded", "This fleet's operations that succeeded."),
	engineMetric("success_rate", "Share of this fleet's operations that succeeded."),
	engineMetric("affected_operations", "This fleet's operations started in the affected window."),
	engineMetric("affected_success_rate", "Share of this fleet's operations started in the affected window that succeeded."),
	engineMetric("dependency_calls", "Calls of this fleet's operations that reached a dependency (through every layer)."),
	engineMetric("amplification", "Calls of this fleet's operations that reached a dependency, per operation (and per call of the plan)."),
}

// hasFleets reports whether every strategy reports the same fleets.
func hasFleets(strats []engine.StrategyResult) bool {
	return sameParts(strats, func(st *engine.StrategyResult) []string {
		var names []string
		for _, f := range st.Fleets {
			names = append(names, f.Name)
		}
		return names
	})
}

// FleetGroupName names a fleet's group of the table: "Fleet web", or for
// the workload's own clients, whose policy the strategies are, "Fleet
// old-sdk (the strategies' own)".
func FleetGroupName(f *engine.FleetResult) string {
	if f.Own {
		return "Fleet " + f.Name + " (the strategies' own)"
	}
	return "Fleet " + f.Name
}

// fleetGroups builds one group of the metrics table per fleet, and the
// labels of the rows it folds away (zero for every strategy).
func fleetGroups(strats []engine.StrategyResult) ([]Group, []string) {
	if !hasFleets(strats) {
		return nil, nil
	}
	var groups []Group
	var folded []string
	for k := range strats[0].Fleets {
		get := func(i int, key string) (float64, float64, float64) {
			f := &strats[i].Fleets[k]
			v, _ := f.Metrics.Metric(key)
			return withSpread(v, f.Spread, key)
		}
		g := Group{Name: FleetGroupName(&strats[0].Fleets[k]), Fleet: strats[0].Fleets[k].Name}
		groups, folded = addPartGroup(groups, folded, g, FleetMetrics, len(strats), get)
	}
	return groups, folded
}
