package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// histRange returns the smallest and largest values of bucket b.
func histRange(b int) (lo, hi int64) {
	if b < 2*subBuckets {
		return int64(b), int64(b)
	}
	shift := (b-2*subBuckets)/subBuckets + 1
	lo = int64(subBuckets+(b-2*subBuckets)%subBuckets) << shift
	return lo, lo + 1<<shift - 1
}

// TestHistBucket checks that buckets rise with the values, hold them, tile
// the int64s and are at most 1/subBuckets of their low end wide.
func TestHistBucket(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	xs := []int64{0, 1, 2047, 2048, 2049, 4095, 4096, 1e6, 40_000_000, 1<<33 - 1, 1 << 33, math.MaxInt64 - 1, math.MaxInt64}
	for range 100000 {
		xs = append(xs, int64(r.Uint64()>>(1+r.IntN(63)))) // any bit length
	}
	slices.Sort(xs)
	prev := 0
	for _, x := range xs {
		b := histBucket(x)
		if b < prev || b >= maxHistBuckets {
			t.Fatalf("histBucket(%d) = %d: below the previous value's %d, or beyond %d", x, b, prev, maxHistBuckets)
		}
		prev = b
		lo, hi := histRange(b)
		if x < lo || x > hi {
			t.Fatalf("histBucket(%d) = %d, whose range [%d, %d] misses it", x, b, lo, hi)
		}
		if x >= 2*subBuckets && uint64(hi-lo) > uint64(lo)/subBuckets {
			t.Fatalf("bucket %d: [%d, %d] wider than 1/%d of its low end", b, lo, hi, subBuckets)
		}
	}
	if b := histBucket(math.MaxInt64); b != maxHistBuckets-1 {
		t.Errorf("the largest value's bucket is %d, want %d", b, maxHistBuckets-1)
	}
	// Each bucket starts right after the previous one ends.
	for b := 1; b < maxHistBuckets; b++ {
		_, hi := histRange(b - 1)
		if lo, _ := histRange(b); lo != hi+1 {
			t.Fatalf("bucket %d starts at %d, bucket %d ends at %d", b, lo, b-1, hi)
		}
	}
}

// histOf returns a latencies holding xs in its histogram, as a long run's
// do, without recording exactLatencies values first.
func histOf(xs []int64) *latencies {
	var l latencies
	for _, x := range xs {
		l.count(x)
	}
	return &l
}

// distributions returns latency samples that are hard on a histogram.
func distributions() map[string][]int64 {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func(n int, f func(i int) int64) []int64 {
		xs := make([]int64, n)
		for i := range xs {
			xs[i] = f(i)
		}
		return xs
	}
	return map[string][]int64{
		"one":      {123_456_789},
		"constant": gen(10000, func(int) int64 { return 40_000_000 }),
		// A constant service time and timeouts: few distinct values, each
		// alone in its bucket, so every percentile is exact.
		"few values": gen(100000, func(i int) int64 { return []int64{40e6, 80e6, 2e9, 2.2e9}[min(i%20, 3)] }),
		// Mostly the service time, a few operations slightly slower in
		// the same bucket: p50 to p95 are still exact.
		"service time": gen(100000, func(i int) int64 {
			if i%100 < 96 {
				return 40e6
			}
			return 40e6 + r.Int64N(9000)
		}),
		"uniform": gen(100000, func(int) int64 { return r.Int64N(5e9) }),
		"small":   gen(100000, func(int) int64 { return r.Int64N(3000) }),
		"bimodal": gen(100000, func(i int) int64 {
			if i%10 == 0 {
				return 2e9 + r.Int64N(1000)
			}
			return 40e6 + r.Int64N(1e6)
		}),
		"heavy tail": gen(100000, func(int) int64 { return int64(1e6 / math.Pow(1-r.Float64(), 1.5)) }),
		"huge": gen(50000, func(int) int64 {
			return math.MaxInt64 - r.Int64N(1<<60)
		}),
		// Every value at the top of a bucket, where the midpoint is
		// furthest from it.
		"bucket tops": gen(50000, func(int) int64 {
			_, hi := histRange(2*subBuckets + r.IntN(40*subBuckets))
			return hi
		}),
		"bucket bottoms": gen(50000, func(int) int64 {
			lo, _ := histRange(2*subBuckets + r.IntN(40*subBuckets))
			return lo
		}),
		"with zeros": gen(100000, func(i int) int64 {
			if i%2 == 0 {
				return 0
			}
			return r.Int64N(1e10)
		}),
	}
}

// TestHistogramError checks the histogram's percentiles against exact
// selection: within 1/2048 of the exact value at any rank, exactly
// equal below 2,048 ns, at the smallest and largest ranks, and where a
// bucket holds one distinct value.
func TestHistogramError(t *testing.T) {
	for name, xs := range distributions() {
		l := histOf(xs)
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		n := int64(len(xs))
		if l.size() != n || l.hi != sorted[n-1] || l.lo != sorted[0] {
			t.Fatalf("%s: size %d, range [%d, %d], want %d, [%d, %d]", name, l.size(), l.lo, l.hi, n, sorted[0], sorted[n-1])
		}
		for _, p := range []float64{0, 0.001, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
			r := rank(p, n)
			want, got := sorted[r], l.quantile(r)
			diff := uint64(max(got, want) - min(got, want))
			if diff > uint64(want)>>11 {
				t.Errorf("%s: p%v = %d, exact %d: off by %d, more than 1/2048", name, p*100, got, want, diff)
			}
			exact := name == "constant" || name == "few values" || name == "one" || name == "service time" && p <= 0.95
			if (exact || want < 2*subBuckets || r == 0 || r == n-1) && got != want {
				t.Errorf("%s: p%v = %d, want exactly %d", name, p*100, got, want)
			}
		}
		p50, p95, p99, mx := l.percentiles()
		e50, e95, e99, emx := percentiles(xs)
		for _, c := range [][2]float64{{p50, e50}, {p95, e95}, {p99, e99}} {
			// 1/2048 of the value, and rounding to a microsecond.
			if math.Abs(c[0]-c[1]) > c[1]/2048+0.001 {
				t.Errorf("%s: percentile %v ms, exact %v ms", name, c[0], c[1])
			}
		}
		if mx != emx {
			t.Errorf("%s: maximum %v ms, want %v", name, mx, emx)
		}
	}
}

// TestLatenciesSpill records more latencies than are kept exactly: the
// kept ones move to the histogram, which then holds every latency.
func TestLatenciesSpill(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	l := newLatencies(100)
	var xs []int64
	for i := range exactLatencies + 1000 {
		x := 40_000_000 + r.Int64N(1e6)
		if i == 5 {
			x = 7e9 // the maximum, among the first, kept values
		}
		if i == exactLatencies-1 {
			// Exact up to here: the same as selecting among them.
			a50, a95, a99, amx := l.percentiles()
			e50, e95, e99, emx := percentiles(xs)
			if a50 != e50 || a95 != e95 || a99 != e99 || amx != emx || l.counted != 0 {
				t.Fatalf("with %d latencies: %v %v %v %v, want %v %v %v %v exactly", len(xs), a50, a95, a99, amx, e50, e95, e99, emx)
			}
		}
		l.add(x)
		xs = append(xs, x)
	}
	if l.size() != int64(len(xs)) || len(l.raw) != exactLatencies {
		t.Fatalf("size %d, %d kept; want %d, %d", l.size(), len(l.raw), len(xs), exactLatencies)
	}
	want := histOf(xs)
	if !slices.Equal(l.hist, want.hist) || l.lo != want.lo || l.hi != want.hi {
		t.Fatalf("the histogram differs from that of the same values counted directly")
	}
	if _, _, _, mx := l.percentiles(); mx != 7000 {
		t.Errorf("maximum %v ms, want 7000", mx)
	}
}

// TestLatenciesReset checks that a reset recorder keeps its memory and
// measures the next run as a new one would.
func TestLatenciesReset(t *testing.T) {
	l := newLatencies(16)
	for i := range exactLatencies + 10 {
		l.add(int64(i) * 1000)
	}
	rawCap, histCap := cap(l.raw), cap(l.hist)
	l.reset()
	if cap(l.raw) != rawCap || cap(l.hist) != histCap {
		t.Errorf("reset changed the capacities: %d, %d; were %d, %d", cap(l.raw), cap(l.hist), rawCap, histCap)
	}
	xs := []int64{5e6, 1e6, 3e6}
	for _, x := range xs {
		l.add(x)
	}
	a50, a95, a99, amx := l.percentiles()
	e50, e95, e99, emx := percentiles(slices.Clone(xs))
	if a50 != e50 || a95 != e95 || a99 != e99 || amx != emx || l.size() != 3 {
		t.Errorf("after reset: %v %v %v %v, want %v %v %v %v", a50, a95, a99, amx, e50, e95, e99, emx)
	}
	// A histogram after reset starts empty too.
	for range exactLatencies {
		l.add(2e6)
	}
	if _, _, _, mx := l.percentiles(); mx != 5 || l.size() != exactLatencies+3 {
		t.Errorf("after reset and a spill: maximum %v ms, size %d; want 5, %d", mx, l.size(), exactLatencies+3)
	}
}

// TestLatenciesBounded records far more latencies than are kept: memory
// stays at the kept values and the buckets up to the largest value.
func TestLatenciesBounded(t *testing.T) {
	l := newLatencies(exactLatencies)
	r := rand.New(rand.NewPCG(5, 6))
	for range 4 * exactLatencies {
		l.add(r.Int64N(1 << 33))
	}
	if cap(l.raw) != exactLatencies || len(l.hist) > 24576 {
		t.Errorf("%d values kept, %d buckets; want %d, at most 24576", cap(l.raw), len(l.hist), exactLatencies)
	}
}

// TestQuantileBeyondTheSmallestTakesTheMidpoint: in the histogram a rank
// among the values equal to its bucket's smallest is that value, and the
// next rank is the bucket's midpoint. 1 µs, then 4,000,000 ns twice and
// 4,001,000 ns (one bucket, 2,048 ns wide), then 9 ms: ranks 1 and 2 are
// 4,000,000; rank 3 is (4,000,000 + 4,001,000)/2.
func TestQuantileBeyondTheSmallestTakesTheMidpoint(t *testing.T) {
	var l latencies
	for _, x := range []int64{1000, 4_000_000, 4_000_000, 4_001_000, 9_000_000} {
		l.count(x)
	}
	if histBucket(4_000_000) != histBucket(4_001_000) {
		t.Fatal("4,000,000 and 4,001,000 ns in two buckets")
	}
	for r, want := range []int64{1000, 4_000_000, 4_000_000, 4_000_500, 9_000_000} {
		if got := l.quantile(int64(r)); got != want {
			t.Errorf("rank %d: %d ns, want %d", r, got, want)
		}
	}
}
