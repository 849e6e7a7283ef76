package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The queue must yield events in (at, insertion) order whatever the pattern
// of pushes and pops.
func TestEventQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var q eventQueue
	var now int64
	var popped int
	lastSeq := map[int64]uint64{}
	for range 200000 {
		if q.len() == 0 || r.IntN(3) > 0 {
			q.push(now+r.Int64N(50), 0, 0, 0)
			continue
		}
		e := q.pop()
		if e.at < now {
			t.Fatalf("popped %d after %d", e.at, now)
		}
		if e.at == now && e.seq < lastSeq[now] {
			t.Fatalf("events at %d popped out of insertion order", now)
		}
		now, lastSeq[e.at] = e.at, e.seq
		popped++
	}
	if popped < 10000 {
		t.Fatalf("only %d pops", popped)
	}
}

func TestPercentilesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 3, 10, 99, 100, 101, 1000, 54321} {
		xs := make([]int64, n)
		for i := range xs {
			switch i % 3 {
			case 0:
				xs[i] = r.Int64N(1e12)
			case 1:
				xs[i] = r.Int64N(40)
			default:
				xs[i] = 40_000_000 // many equal values
			}
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		at := func(p float64) float64 {
			return round3(ms(sorted[max(int(math.Ceil(p*float64(n)))-1, 0)]))
		}
		p50, p95, p99, mx := percentiles(xs)
		if p50 != at(0.5) || p95 != at(0.95) || p99 != at(0.99) || mx != round3(ms(sorted[n-1])) {
			t.Errorf("n=%d: got %v %v %v %v, want %v %v %v %v", n, p50, p95, p99, mx, at(0.5), at(0.95), at(0.99), round3(ms(sorted[n-1])))
		}
	}
}
