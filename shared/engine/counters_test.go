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

// TestPoolSeriesAcrossALongQuietGap: the pool's bins grow to reach an
// event far past them. One client makes an operation every 10 s (bins
// of 10 ms: the second comes 1,000 bins on, past the first 256 and
// their doubling), each holding the pool's one slot for 1 s; the pool is
// in use in the buckets of 0, 10 and 20 s and those of their releases,
// 1, 11 and 21 s, only.
func TestPoolSeriesAcrossALongQuietGap(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "gap",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 0.1, "operations": 3},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1s"}, "queue_capacity": 1},
		"strategies": [{"name": "s", "max_attempts": 1, "pool": {"slots": 1}}],
		"report": {"series_bucket": "1s"}}`)
	sr := &res.Strategies[0]
	if sr.Metrics.Succeeded != 3 {
		t.Fatalf("%v succeeded, want 3", sr.Metrics.Succeeded)
	}
	use := sr.Series.PoolInUse
	if len(use) < 22 {
		t.Fatalf("%d buckets of the pool's use, want the run's 22", len(use))
	}
	for b, v := range use {
		want := int32(0)
		if b < 22 && b%10 < 2 {
			want = 1
		}
		if v != want {
			t.Errorf("pool in use %d in [%d s, %d s), want %d", v, b, b+1, want)
		}
	}
}

// TestInFlightLevelCarriedAcrossCoarsening: the in-flight level is
// carried into every bin no event touched, those just after the bins
// coarsen too. One operation takes 1,000 s; its end, past the 65,536
// bins of 10 ms (655 s), coarsens them to 20 ms, where every bucket of
// the series (20 ms, as fine as the bins) must show it in flight.
func TestInFlightLevelCarriedAcrossCoarsening(t *testing.T) {
	res := mustRun(t, `{"version": 1, "name": "long",
		"workload": {"clients": 1, "arrival": "uniform", "rate": 1, "operations": 1},
		"dependency": {"workers": 1, "service_time": {"kind": "constant", "mean": "1000s"}, "queue_capacity": 1},
		"strategies": [{"name": "s", "max_attempts": 1, "attempt_timeout": "1h"}],
		"report": {"series_bucket": "10ms"}}`)
	sr := &res.Strategies[0]
	if sr.Series.BucketMS != 20 {
		t.Fatalf("buckets of %v ms, want 20 (the bins coarsened once)", sr.Series.BucketMS)
	}
	f := sr.Series.InFlight
	if len(f) != 50001 {
		t.Fatalf("%d buckets in flight, want 50,001 (1,000 s, and the end's)", len(f))
	}
	for b, v := range f {
		if v != 1 {
			t.Errorf("%d operations in flight in bucket %d (from %d ms), want 1", v, b, 20*b)
		}
	}
}
