package engine

import (
	"math"
	"math/bits"
)

// exactLatencies is how many latencies a latencies keeps as they are: up to
// that many, percentiles are exact. It is twice the most operations a run of
// any built-in or test scenario makes (metadata-storm: 239,327), which
// TestGoldenLatenciesExact checks, so their results do not depend on the
// histogram. Kept values cost 8 bytes each: at most 4 MiB a recorder.
const exactLatencies = 1 << 19

// The histogram is log-linear, as HDR histograms are: values below
// 2·subBuckets have a bucket each; above, each power of two [2^k, 2^(k+1))
// is cut into subBuckets buckets of equal width 2^(k-subBits). A bucket is
// then at most 1/subBuckets of its lowest value wide. Each bucket keeps
// the smallest and largest values in it too, and how many equal the
// smallest: a rank among those is the smallest, exactly (a constant
// service time, with a few slower operations beside it); another rank
// takes the midpoint of the smallest and largest, within half a bucket,
// 1/2048 (0.049%), of any value in it.
const (
	subBits    = 10
	subBuckets = 1 << subBits
	// maxHistBuckets bounds a histogram: the bucket of the largest int64.
	// At 32 bytes a bucket that is at most 1.8 MB; a histogram grows only
	// as far as the largest value recorded (below 2^33 ns, 8.6 s: 24,576
	// buckets, 786 kB).
	maxHistBuckets = 2*subBuckets + (63-subBits-1)*subBuckets
)

// histBucket returns the bucket of x ≥ 0. Buckets rise with the values.
func histBucket(x int64) int {
	l := bits.Len64(uint64(x))
	if l <= subBits+1 {
		return int(x)
	}
	shift := l - subBits - 1
	return 2*subBuckets + (shift-1)*subBuckets + int(uint64(x)>>shift) - subBuckets
}

// latencies records the latencies of a run, in nanoseconds (≥ 0), in
// bounded memory. The first exactLatencies are kept as they are, and
// their percentiles are exact. Beyond that every latency, those kept
// included, is counted in a log-linear histogram, and a percentile is
// the smallest value in the bucket holding its rank, or the midpoint of
// its smallest and largest values (see subBits): within 1/2048 (0.049%)
// of the exact value, and exact below 2,048 ns, among values equal to
// their bucket's smallest, and for the minimum and maximum. A latencies never holds more than exactLatencies values and
// maxHistBuckets buckets, however long the run.
type latencies struct {
	raw []int64 // the latencies, while exact; full once the histogram is used
	// hist is the histogram by histBucket, as far as the largest value;
	// counted the values in it (0 while exact).
	hist    []histCell
	counted int64
	lo, hi  int64 // the smallest and largest values counted
}

// A histCell is a bucket of a histogram: how many values fell in it, the
// smallest, how many equal it, and the largest.
type histCell struct{ n, lo, atLo, hi int64 }

// newLatencies returns a recorder with room for n latencies kept exactly
// (at most exactLatencies).
func newLatencies(n int) latencies {
	return latencies{raw: make([]int64, 0, min(n, exactLatencies))}
}

// add records a latency d ≥ 0.
func (l *latencies) add(d int64) {
	if len(l.raw) < exactLatencies {
		l.raw = append(l.raw, d)
		return
	}
	l.count(d)
}

// count adds d to the histogram, first moving the kept values there if
// it is empty.
func (l *latencies) count(d int64) {
	if l.counted == 0 {
		l.lo, l.hi = d, d
		for _, x := range l.raw {
			l.countOne(x)
		}
	}
	l.countOne(d)
}

func (l *latencies) countOne(x int64) {
	b := histBucket(x)
	if b >= len(l.hist) {
		l.hist = append(l.hist, make([]histCell, b+1-len(l.hist))...)
	}
	c := &l.hist[b]
	switch {
	case c.n == 0 || x < c.lo:
		c.lo, c.atLo = x, 1
	case x == c.lo:
		c.atLo++
	}
	c.n++
	c.hi = max(c.hi, x)
	l.counted++
	l.lo, l.hi = min(l.lo, x), max(l.hi, x)
}

// size returns the number of latencies recorded.
func (l *latencies) size() int64 {
	if l.counted > 0 {
		return l.counted
	}
	return int64(len(l.raw))
}

// reset empties l for another run, keeping its memory.
func (l *latencies) reset() {
	l.raw = l.raw[:0]
	clear(l.hist)
	l.hist = l.hist[:0]
	l.counted, l.lo, l.hi = 0, 0, 0
}

// rank returns the 0-based nearest rank of percentile p among n values:
// the value a sort would put at that index is the percentile.
func rank(p float64, n int64) int64 {
	return max(int64(math.Ceil(float64(p*float64(n))))-1, 0)
}

// quantile returns the value of the histogram at rank r (< counted): the
// smallest or largest value counted at the ends, else that of the bucket
// holding it (see subBits).
func (l *latencies) quantile(r int64) int64 {
	switch r {
	case 0:
		return l.lo
	case l.counted - 1:
		return l.hi
	}
	var below int64
	b := 0
	for ; below+l.hist[b].n <= r; b++ {
		below += l.hist[b].n
	}
	c := &l.hist[b]
	if r-below < c.atLo {
		return c.lo
	}
	return c.lo + (c.hi-c.lo)/2
}

// percentiles returns the 50th, 95th and 99th percentiles (nearest rank)
// and the maximum of the latencies, in milliseconds: those of the
// package's percentiles while l keeps every latency, the histogram's
// beyond (see latencies), the maximum always exactly.
func (l *latencies) percentiles() (p50, p95, p99, mx float64) {
	if l.counted == 0 {
		return percentiles(l.raw)
	}
	value := func(p float64) float64 { return round3(ms(l.quantile(rank(p, l.counted)))) }
	return value(0.50), value(0.95), value(0.99), round3(ms(l.hi))
}
