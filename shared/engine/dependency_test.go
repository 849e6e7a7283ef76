package engine

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestErrorDrawsFailBelowTheirRate: a call fails with probability
// exactly its error rate: it fails when its draw, uniform in [0, 1), is
// below the rate, so a rate of 0 never fails and a draw equal to the
// rate succeeds. One operation makes one call; its draw of each kind
// (the first call of operation 0, seed 1) is computed here and given as
// the rate, then the next float above it: success, then failure. The
// load curve is flat at the rate, so its interpolation is the rate.
func TestErrorDrawsFailBelowTheirRate(t *testing.T) {
	const js = `{"version": 1, "name": "draw", "seed": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 1},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 1 DEP},
		"strategies": [{"name": "s", "max_attempts": 1}]}`
	for _, c := range []struct {
		name    string
		purpose uint64
		dep     string
	}{
		{"error_rate", drawError, `, "error_rate": RATE`},
		{"an errors phase", drawPhase, `, "phases": [{"kind": "errors", "from": "0s", "to": "1h", "rate": RATE}]`},
		{"load_errors", drawLoadError, `, "load_errors": {"window": "1s", "points": [{"load": 1, "rate": RATE}, {"load": 100, "rate": RATE}]}`},
	} {
		k := keyed{seed: 1}
		u := k.float(c.purpose, 0, 0)
		for _, e := range []struct {
			rate, succeeded float64
		}{{u, 1}, {math.Nextafter(u, 1), 0}} {
			dep := strings.ReplaceAll(c.dep, "RATE", strconv.FormatFloat(e.rate, 'g', -1, 64))
			m := mustRun(t, strings.Replace(js, " DEP", dep, 1)).Strategies[0].Metrics
			if m.Succeeded != e.succeeded {
				t.Errorf("%s %v, the call's draw %v: %v succeeded, want %v", c.name, e.rate, u, m.Succeeded, e.succeeded)
			}
		}
	}
}

// TestShedThresholdZeroShedsEveryCall: a class's shedding threshold is
// reached when the measure is at or above it, so a threshold of 0 sheds
// every call of the class, even at an idle dependency, and a threshold of
// 1 sheds none while nothing waits. One client makes 5 operations a
// second apart against a dependency serving each in 1 ms.
func TestShedThresholdZeroShedsEveryCall(t *testing.T) {
	const js = `{"version": 1, "name": "shed",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 5},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 10,
			"shedding": {"measure": "MEASURE", "thresholds": {"critical": THRESHOLD}}},
		"strategies": [{"name": "s", "max_attempts": 1}]}`
	for _, c := range []struct {
		measure, threshold string
		shed               float64
	}{
		{"queue", "0", 5},
		{"load", "0", 5},
		{"queue", "1", 0},
		{"load", "1", 0},
	} {
		m := mustRun(t, strings.NewReplacer("MEASURE", c.measure, "THRESHOLD", c.threshold).Replace(js)).Strategies[0].Metrics
		if m.Shed != c.shed || m.Succeeded != 5-c.shed {
			t.Errorf("measure %s, threshold %s: %v shed, %v succeeded; want %v and %v", c.measure, c.threshold, m.Shed, m.Succeeded, c.shed, 5-c.shed)
		}
	}
}
