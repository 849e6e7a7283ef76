package engine

import "testing"

// TestAffectedWindowCountsStartsFromItsStartToBeforeItsEnd: the affected
// window [affected_from, affected_to) counts the operations that start
// in it: one starting at affected_from is in, one starting at
// affected_to is out. One client makes an operation a second, at 0, 1,
// …, 9 s; a window of [2 s, 5 s) holds those of 2, 3 and 4 s, all
// succeeding, and [2 s, 5.5 s) those of 2 to 5 s.
func TestAffectedWindowCountsStartsFromItsStartToBeforeItsEnd(t *testing.T) {
	for _, c := range []struct {
		to   string
		want float64
	}{{"5s", 3}, {"5500ms", 4}} {
		res := mustRun(t, `{"version": 1, "name": "affected",
			"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 10},
			"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "10ms"}},
			"strategies": [{"name": "s", "max_attempts": 1}],
			"report": {"affected_from": "2s", "affected_to": "`+c.to+`"}}`)
		m := res.Strategies[0].Metrics
		if m.AffectedOperations != c.want || m.AffectedSuccessRate != 1 {
			t.Errorf("window [2s, %s): %v operations in it, success rate %v; want %v, 1", c.to, m.AffectedOperations, m.AffectedSuccessRate, c.want)
		}
	}
}
