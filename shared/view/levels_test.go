package view

import (
	"slices"
	"testing"

	"github.com/retrylab/retrylab/shared/engine"
)

// TestTableCountsRetriesAtEveryLevel: failover-incident's every-layer
// retries 0 times at its clients and about 61k times in its layers; the
// table says so, level by level, after the retries of every level (#27,
// item 7).
func TestTableCountsRetriesAtEveryLevel(t *testing.T) {
	res, v := runBuiltin(t, "failover-incident", nil)
	col := slices.IndexFunc(res.Strategies, func(s engine.StrategyResult) bool { return s.Name == "every-layer" })
	var keys []string
	cells := map[string]string{}
	for _, g := range v.Groups {
		if g.Name != "Load on the dependency" {
			continue
		}
		for _, r := range g.Rows {
			keys = append(keys, r.Key)
			cells[r.Key] = r.Cells[col].Value
		}
	}
	want := map[string]string{"retries": "0", "retries_all_levels": "61346", "layer_retries": "0 / 20424 / 40922", "layer_attempts": "11890 / 32314 / 73236"}
	for k, w := range want {
		if cells[k] != w {
			t.Errorf("every-layer's %s reads %q, want %q", k, cells[k], w)
		}
	}
	if i, j := slices.Index(keys, "retries_all_levels"), slices.Index(keys, "layer_attempts"); i < 0 || j != i+2 {
		t.Errorf("the load rows are %v; want retries_denied and then the counts by level after retries_all_levels", keys)
	}
}

// TestLevelRowsNeedLevels: the counts by level appear when some strategy
// has two levels or more, its cells reading level by level, and not for
// strategies of one level, whose one count is the attempts row's.
func TestLevelRowsNeedLevels(t *testing.T) {
	one := []engine.StrategyResult{{Name: "A", LayerAttempts: []float64{40}, LayerRetries: []float64{10}}, {Name: "B"}}
	if rows, folded := levelRows(one); rows != nil || folded != nil {
		t.Errorf("one level: rows %+v, folded %q; want none", rows, folded)
	}
	two := []engine.StrategyResult{{Name: "A", LayerAttempts: []float64{40, 90}, LayerRetries: []float64{10, 50}}, {Name: "B"}}
	rows, folded := levelRows(two)
	got := map[string]string{}
	for _, r := range rows {
		got[r.Key] = r.Cells[0].Value
	}
	if got["layer_attempts"] != "40 / 90" || got["layer_retries"] != "10 / 50" || !slices.Equal(folded, []string{"Retries denied by level, the client first"}) {
		t.Errorf("two levels: cells %v, folded %q", got, folded)
	}
}
