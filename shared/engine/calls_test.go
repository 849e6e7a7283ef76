package engine

import (
	"context"
	"testing"
)

func TestAnswerTravellingBackIsNotCancelledTwice(t *testing.T) {
	// The layer's answer takes 10 ms to travel back to the client, whose
	// attempt times out meanwhile (at 20 ms; the answer lands at 25 ms).
	// The layer's invocation has already ended and been freed: the
	// timeout must not cancel (free) it again, or its slot is handed out
	// twice.
	sc, err := Parse([]byte(`{"version": 1, "name": "travel",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 3},
		"dependency": {"workers": 4, "service_time": {"kind": "constant", "mean": "5ms"}, "queue_capacity": 10,
			"network": {"answer": {"kind": "constant", "mean": "10ms"}}},
		"strategies": [{"name": "s", "max_attempts": 2, "attempt_timeout": "20ms", "layers": [{"max_attempts": 1}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compile(sc)
	s := newSim(context.Background(), m, &m.strategies[0], m.seeds[0], 0)
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	seen := map[int32]bool{}
	for _, id := range s.freeCalls {
		if seen[id] {
			t.Fatalf("call %d was freed twice", id)
		}
		seen[id] = true
	}
	if len(s.freeCalls) != len(s.calls) {
		t.Errorf("%d calls, %d free at the end", len(s.calls), len(s.freeCalls))
	}
}
