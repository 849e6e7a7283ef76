package view

import (
	"strings"

	"github.com/retrylab/retrylab/shared/chart"
	"github.com/retrylab/retrylab/shared/engine"
)

// LevelMetrics describe the rows of the metrics table that give a count
// at each level of a strategy, the client first and then each layer
// inward (engine.StrategyResult's layer_* lists), shown after
// retries_denied when some strategy has layers.
var LevelMetrics = []Metric{
	{Key: "layer_attempts", Label: "Attempts by level, the client first", Group: engine.GroupLoad,
		Explain: "Calls made at each level, from the client (the outermost) inward to the last layer: its first attempts and retries."},
	{Key: "layer_retries", Label: "Retries by level, the client first", Group: engine.GroupLoad,
		Explain: "Calls after the first one of each invocation, at each level from the client inward (hedged copies included); they add up to retries at every level, and the first is the clients' retries."},
	{Key: "layer_retries_denied", Label: "Retries denied by level, the client first", Group: engine.GroupLoad,
		Explain: "Retries a retry budget did not allow at each level, from the client inward; they add up to retries denied by a budget, at every level."},
}

// levels returns a strategy's counts by level of the metric key (one of
// LevelMetrics), the client first: a strategy without layers has one
// level, the client's.
func levels(st *engine.StrategyResult, key string) []float64 {
	var by []float64
	switch key {
	case "layer_attempts":
		by = st.LayerAttempts
	case "layer_retries":
		by = st.LayerRetries
	case "layer_retries_denied":
		by = st.LayerRetriesDenied
	}
	if len(by) > 0 {
		return by
	}
	m := &st.Metrics
	switch key {
	case "layer_attempts":
		return []float64{m.Attempts}
	case "layer_retries":
		return []float64{m.Retries}
	}
	return []float64{m.RetriesDenied}
}

// levelRows returns the rows of LevelMetrics, each cell a strategy's
// counts by level ("0 / 20424 / 40922"), when some strategy has layers,
// and the labels of those it folds away (zero for every strategy). The
// rows mark no best or worst: the levels of two strategies need not be
// alike.
func levelRows(strats []engine.StrategyResult) ([]Row, []string) {
	layered := false
	for i := range strats {
		layered = layered || len(strats[i].LayerAttempts) > 1
	}
	if !layered {
		return nil, nil
	}
	var rows []Row
	var folded []string
	for _, m := range LevelMetrics {
		r := Row{Metric: m}
		zero := true
		for i := range strats {
			var parts []string
			for _, v := range levels(&strats[i], m.Key) {
				zero = zero && v == 0
				parts = append(parts, chart.FormatCell("attempts", v))
			}
			r.Cells = append(r.Cells, Cell{Value: strings.Join(parts, " / ")})
		}
		if zero {
			folded = append(folded, m.Label)
			continue
		}
		rows = append(rows, r)
	}
	return rows, folded
}
