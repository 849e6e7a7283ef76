package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
)

// longE03B returns the built-in E03-B (strategy D's budget counts over a
// 1 s window, unlike testdata/e03b.json's) with k times its duration and
// one run.
func longE03B(tb testing.TB, k int) *Scenario {
	tb.Helper()
	data, err := os.ReadFile("../scenarios/catalog/e03b-synchronized-recovery.json")
	if err != nil {
		tb.Fatal(err)
	}
	var b struct{ Scenario json.RawMessage }
	if err := json.Unmarshal(data, &b); err != nil {
		tb.Fatal(err)
	}
	sc, err := Parse(b.Scenario)
	if err != nil {
		tb.Fatal(err)
	}
	sc.Workload.Duration *= Duration(k)
	sc.Runs = 1
	return sc
}

// TestLongRunBounded runs strategy D of E03-B for 200 times its duration:
// more operations than latencies are kept exactly, more bins than a run
// keeps, and long stretches without a retry, when nothing looks at the
// budget's window. What a run holds stays within its bounds.
func TestLongRunBounded(t *testing.T) {
	m := compile(longE03B(t, 200))
	s := newSim(context.Background(), m, &m.strategies[3], m.seeds[0], 0)
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	c := &s.c
	if c.lat.size() != c.operations || c.okLat.size() != c.succeeded || c.lat.counted <= exactLatencies {
		t.Fatalf("%d operations, %d succeeded: %d and %d latencies recorded, %d in the histogram", c.operations, c.succeeded, c.lat.size(), c.okLat.size(), c.lat.counted)
	}
	for _, l := range []*latencies{&c.lat, &c.okLat} {
		// The deadline is 5 s: every latency is below 2^33 ns.
		if cap(l.raw) > exactLatencies || len(l.hist) > 24576 {
			t.Errorf("a recorder holds %d values and %d buckets, want at most %d and 24576", cap(l.raw), len(l.hist), exactLatencies)
		}
	}
	for k := range c.bins {
		if len(c.bins[k]) > maxBins {
			t.Errorf("bins %d: %d of them, more than %d", k, len(c.bins[k]), maxBins)
		}
	}
	// 95 first attempts a second, counted over 1 s.
	if n := len(s.inst[0][0].reqTimes.buf); n > 1024 {
		t.Errorf("the budget's window holds room for %d first attempts", n)
	}
	// Operations last 5 s at most: 50 steps.
	if n := cap(c.rec.total); n > 2*settleSteps {
		t.Errorf("recovery holds room for %d steps", n)
	}
	if s.base == m.base {
		t.Errorf("the bins were never coarsened")
	}
}

// BenchmarkE03BLong runs E03-B (one seed, four strategies, one after the
// other, series kept) at 10, 100 and 1000 times its duration. Besides the
// bytes allocated it reports kept-MiB, the most heap in use between
// simulations (after a GC, at each one's end): what outlives a simulation,
// its output and anything it pins. A running simulation adds its own
// memory, bounded (TestLongRunBounded): from 2^19 operations, about 200
// times E03-B's duration, its latencies stop growing.
func BenchmarkE03BLong(b *testing.B) {
	for _, k := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("x%d", k), func(b *testing.B) {
			sc := longE03B(b, k)
			var peak uint64
			opt := Options{Parallelism: 1, Progress: func(int, int) {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(context.Background(), sc, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "kept-MiB")
		})
	}
}
