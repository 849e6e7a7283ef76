package engine

import (
	"fmt"
	"strings"
	"testing"
)

// TestShedLoadThresholdWarnsFromQueueAndWorkers: shedding on the load
// (queued and in service) warns of a threshold the full queue and every
// worker busy reach first: 6 with 4 places in the queue and 2 workers,
// not 5.
func TestShedLoadThresholdWarnsFromQueueAndWorkers(t *testing.T) {
	for _, tc := range []struct {
		threshold int
		warns     bool
	}{{5, false}, {6, true}, {7, true}} {
		sc, err := Parse([]byte(fmt.Sprintf(`{"version": 1, "name": "shed",
			"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "duration": "1s"},
			"dependency": {"workers": 2, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4,
				"shedding": {"measure": "load", "thresholds": {"critical": %d}}},
			"strategies": [{"name": "s", "max_attempts": 1}]}`, tc.threshold)))
		if err != nil {
			t.Fatal(err)
		}
		ws := sheddingWarnings(sc)
		const want = "is not below the queue capacity and the workers (6)"
		if got := len(ws) == 1 && strings.Contains(ws[0], want); got != tc.warns || !tc.warns && len(ws) > 0 {
			t.Errorf("threshold %d: warnings %q; want a warning %v", tc.threshold, ws, tc.warns)
		}
	}
}

// TestHumanCountWritesMillionsAndBillions: a count of a million or more
// is written in millions, of a billion or more in billions, to one
// decimal; smaller ones whole.
func TestHumanCountWritesMillionsAndBillions(t *testing.T) {
	for n, want := range map[int64]string{
		999_999:       "999999",
		1_000_000:     "1.0 million",
		3_400_000:     "3.4 million",
		999_949_999:   "999.9 million",
		999_950_000:   "1.0 billion", // never "1000.0 million"
		999_999_999:   "1.0 billion",
		1_000_000_000: "1.0 billion",
		2_500_000_000: "2.5 billion",
	} {
		if got := humanCount(n); got != want {
			t.Errorf("humanCount(%d) = %q, want %q", n, got, want)
		}
	}
}
