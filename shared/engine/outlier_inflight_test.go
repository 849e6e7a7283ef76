package engine

import (
	"fmt"
	"testing"
)

// TestOutlierRunEndsAtAnInFlightSuccess: a backend that fails while
// requests it took before are still in service answers those with
// successes, and each ends the run of 5xx (Envoy's consecutive_5xx
// counts answers in the order they come: any other answer resets it).
// So it fails more than consecutive_5xx requests before it is ejected,
// and is ejected at once at the 5th 5xx in a row. Round robin over two
// backends, an operation every 10 ms: backend 0 takes one every 20 ms and
// serves it 50 ms; from 1,005 ms it answers 503 at once. Its two requests
// in service then succeed between its first 503s: 503, 200, 503, 200,
// then five 503s and the ejection: 7 failures. With 1 ms of service
// nothing is in service at the fault's start: 5 failures.
func TestOutlierRunEndsAtAnInFlightSuccess(t *testing.T) {
	for _, tc := range []struct {
		service string
		failed  float64
	}{{"50ms", 7}, {"1ms", 5}} {
		js := fmt.Sprintf(`{"version": 1, "name": "in-flight",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 100, "duration": "2s"},
		"dependency": {"workers": 10, "service_time": {"kind": "constant", "mean": %q}, "queue_capacity": 10,
			"backends": {"count": 2, "outlier_detection": {}},
			"phases": [{"kind": "outage", "from": "1005ms", "to": "2s", "backends": [0]}]},
		"strategies": [{"name": "once", "max_attempts": 1}]}`, tc.service)
		st := strategy(t, mustRun(t, js), "once")
		if b := st.Backends[0].Metrics; b.Failed != tc.failed || b.Ejections != 1 {
			t.Errorf("service %s: backend 0 failed %g requests and was ejected %g times; want %g and 1", tc.service, b.Failed, b.Ejections, tc.failed)
		}
	}
}
