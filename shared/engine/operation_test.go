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

// TestClosedClientStopsAtTheDuration: a closed-loop client that would
// think past the duration starts nothing more, and the run ends with its
// last operation. One client first starts at some r in [0 s, 4 s), each
// operation takes 1 s and the client thinks 4 s after it: operations
// start at r and r+5 s, and the next one, at r+10 s, would be past the
// 10 s. The run's series end with the second operation, before 10 s.
func TestClosedClientStopsAtTheDuration(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "closed",
		"workload": {"clients": 1, "arrival": "closed", "think_time": "4s", "duration": "10s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1s"}, "queue_capacity": 1},
		"strategies": [{"name": "s", "max_attempts": 1}], "seeds": [1, 2, 3], "report": {"series_bucket": "1s"}}`)
	sr := strategy(t, res, "s")
	if sr.Metrics.Operations != 2 {
		t.Errorf("%v operations a run, want 2", sr.Metrics.Operations)
	}
	if n := len(sr.Series.Attempts); n > 10 {
		t.Errorf("series of %d buckets of 1 s, want the run to end before 10 s", n)
	}
}

// TestNonIdempotentShareIsStrict: an operation is non-idempotent when its
// draw, uniform in [0, 1), is below mix.non_idempotent, so that a share p
// makes a share p of the operations non-idempotent. The one operation of
// a run, failing every attempt, is retried with the share set to its own
// draw, and given up after its first attempt with the next share above
// (a strategy retries no non-idempotent operation without a key).
func TestNonIdempotentShareIsStrict(t *testing.T) {
	sc, err := Parse([]byte(`{"version": 1, "name": "one payment", "runs": 1,
		"workload": {"clients": 1, "arrival": "uniform", "rate": 10, "operations": 1, "duration": "1s"},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1ms"}, "queue_capacity": 4, "error_rate": 1},
		"strategies": [{"name": "s", "max_attempts": 2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rnd := keyed{seed: SeedsOf(sc)[0]}
	draw := rnd.float(drawMix, 0, 1) // client 0's first operation
	if draw <= 0 {
		t.Fatalf("the operation's draw is %v: no share tells below from at", draw)
	}
	for _, tc := range []struct {
		share    float64
		attempts float64
		gaveUp   float64 // as non-idempotent
	}{
		{draw, 2, 0},
		{math.Nextafter(draw, 1), 1, 1},
	} {
		sc.Workload.Mix.NonIdempotent = tc.share
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), sc, Options{NoSeries: true})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Strategies[0].Metrics
		if m.Operations != 1 || m.Attempts != tc.attempts || m.GaveUpNonIdempotent != tc.gaveUp {
			t.Errorf("share %v, draw %v: %v attempts, %v given up as non-idempotent, of %v operations; want %v and %v",
				tc.share, draw, m.Attempts, m.GaveUpNonIdempotent, m.Operations, tc.attempts, tc.gaveUp)
		}
	}
}
