package chart

import (
	"encoding/json"

	"github.com/retrylab/retrylab/shared/engine"
)

// A Row of the comparison table: one metric across strategies. The server's
// pages and the playground build their tables from Rows, so both show the
// same values, formatted the same way, with the same best and worst marked.
type Row struct {
	Metric string `json:"metric"`
	Cells  []Cell `json:"cells"`
}

// A Cell is one strategy's value of a metric, its spread over seeds when it
// has one ("min–max"), and its Class: "best", "worst" or "".
type Cell struct {
	Value  string `json:"value"`
	Spread string `json:"spread,omitempty"`
	Class  string `json:"class,omitempty"`
}

// SweepRows builds the table of a sweep: one row per swept value, with each
// strategy's success rate and attempts.
func SweepRows(res *engine.Result) []Row {
	var rows []Row
	for _, pt := range res.Sweep {
		val, _ := json.Marshal(pt.Value)
		r := Row{Metric: string(val)}
		for _, st := range pt.Strategies {
			r.Cells = append(r.Cells,
				Cell{Value: FormatCell("success_rate", st.Metrics.SuccessRate)},
				Cell{Value: FormatCell("attempts", st.Metrics.Attempts)})
		}
		rows = append(rows, r)
	}
	return rows
}

// better says which way a metric improves: 1 higher, -1 lower, 0 neither.
func better(name string) int {
	switch name {
	case "succeeded", "success_rate", "affected_success_rate", "recovered", "goodput_per_s":
		return 1
	case "operations", "affected_operations", "first_attempts", "events", "retries_denied", "fast_failed", "dropped_abandoned":
		return 0
	}
	return -1
}

// Rows builds the comparison table of strategies, marking the best and worst
// value of each metric whose direction is known, when the strategies differ
// and, with several seeds, when their ranges over the seeds do not overlap
// (a difference within the seeds' spread is no difference).
func Rows(strats []engine.StrategyResult) []Row {
	var rows []Row
	for _, name := range engine.MetricNames() {
		r := Row{Metric: name}
		vals := make([]float64, len(strats))
		lo, hi := 0, 0
		for i, st := range strats {
			v, _ := st.Metrics.Metric(name)
			vals[i] = v
			if v < vals[lo] {
				lo = i
			}
			if v > vals[hi] {
				hi = i
			}
			c := Cell{Value: FormatCell(name, v)}
			if mm, ok := st.Spread[name]; ok && mm.Min != mm.Max {
				c.Spread = FormatCell(name, mm.Min) + "–" + FormatCell(name, mm.Max)
			}
			r.Cells = append(r.Cells, c)
		}
		if d := better(name); d != 0 && len(strats) > 1 && vals[lo] != vals[hi] && !overlap(strats, name, lo, hi) {
			best, worst := hi, lo
			if d < 0 {
				best, worst = lo, hi
			}
			r.Cells[best].Class, r.Cells[worst].Class = "best", "worst"
		}
		rows = append(rows, r)
	}
	return rows
}

// overlap reports whether the seeds' ranges of a metric for strategies a and
// b overlap.
func overlap(strats []engine.StrategyResult, name string, a, b int) bool {
	ra, oka := strats[a].Spread[name]
	rb, okb := strats[b].Spread[name]
	return oka && okb && ra.Min <= rb.Max && rb.Min <= ra.Max
}
