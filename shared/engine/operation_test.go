package engine

import (
	"context"
	"math"
	"testing"
)

// TestUnreadableShareIsStrict: an operation is unreadable when its draw,
// uniform in [0, 1), is below mix.unreadable, so that a share u makes a
// share u of the operations unreadable (a draw at u is not below it). The
// one operation of a run is readable with the share set to its own draw,
// and unreadable with the next share above.
func TestUnreadableShareIsStrict(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "one message", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 1, "duration": "1s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4},
		"strategies": [{"name": "s", "max_attempts": 1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	seeds := SeedsOf(sc)
	if len(seeds) != 1 {
		t.Fatalf("%d seeds, want 1", len(seeds))
	}
	rnd := keyed{seed: seeds[0]}
	draw := rnd.float(drawMix, 0, 3) // client 0's first operation
	if draw <= 0 {
		t.Fatalf("the operation's draw is %v: no share tells below from at", draw)
	}
	for _, tc := range []struct {
		share      float64
		unreadable float64
	}{
		{draw, 0},
		{math.Nextafter(draw, 1), 1},
	} {
		sc.Workload.Mix.Unreadable = tc.share
		res, err := Run(context.Background(), sc, Options{NoSeries: true})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Strategies[0].Metrics
		if m.Operations != 1 || m.GaveUpUnreadable != tc.unreadable {
			t.Errorf("share %v, draw %v: %v of %v operations unreadable, want %v", tc.share, draw, m.GaveUpUnreadable, m.Operations, tc.unreadable)
		}
	}
}
