// This file holds the workload's arrivals: the operation starts of an
// open-loop or burst workload, drawn in time order.

package engine

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// An arrival is an operation start of an open-loop or burst workload.
type arrival struct {
	at     int64
	client int32
}

// arrivals generates a workload's operation starts in time order. Every
// strategy of a run gets its own generator with the same seed, and so the
// same arrivals (common random numbers), without holding them all in memory.
type arrivals struct {
	w     *workModel
	r     rand.PCG
	t     float64 // time of the last arrival, ns
	k     int     // arrivals made
	limit int
	end   float64
	segs  []loadSeg // with load phases: the spans the rate is bounded in
	seg   int       // the span a.t is in
}

func newArrivals(w *workModel, seed uint64) arrivals {
	a := arrivals{w: w, limit: w.operations, end: float64(w.duration)}
	a.r.Seed(seed, drawArrival)
	if a.limit == 0 {
		a.limit = math.MaxInt
	}
	if w.duration == 0 {
		a.end = math.Inf(1)
	}
	if w.arrival == ArrivalClosed {
		a.limit = 0 // closed-loop clients start their own operations
	}
	if len(w.load) > 0 {
		a.segs = w.loadSegs(a.end)
	}
	return a
}

// next returns the next arrival, or false when there is none.
func (a *arrivals) next() (arrival, bool) {
	w := a.w
	if a.k >= a.limit {
		return arrival{}, false
	}
	var x arrival
	switch w.arrival {
	case ArrivalBurst:
		if a.k >= w.clients {
			return arrival{}, false
		}
		x = arrival{at: w.burstAt, client: int32(a.k)}
	case ArrivalPoisson:
		if a.segs != nil {
			if !a.loadGap() {
				return arrival{}, false
			}
		} else if w.cut {
			if !a.cutGap() {
				return arrival{}, false
			}
		} else {
			a.t += float64(exp1(&a.r) * (1e9 / w.rate))
		}
		if a.t >= a.end {
			return arrival{}, false
		}
		if w.fleetCum != nil {
			// A fleet chosen in proportion to its rate, then one of its clients.
			u := float64(a.r.Uint64()>>11) * 0x1p-53
			f := 0
			for f+1 < len(w.fleetCum) && u >= w.fleetCum[f] {
				f++
			}
			hi, _ := bits.Mul64(a.r.Uint64(), uint64(w.fleetClients[f]))
			x = arrival{at: int64(a.t), client: w.fleetFirst[f] + int32(hi)}
			break
		}
		// A client chosen uniformly: the high word of a 64×64-bit product.
		hi, _ := bits.Mul64(a.r.Uint64(), uint64(w.clients))
		x = arrival{at: int64(a.t), client: int32(hi)}
	case ArrivalUniform:
		// Evenly spaced: the clients take turns, one operation every 1/rate.
		t := float64(float64(a.k) * (1e9 / w.rate))
		if w.cut && t >= float64(w.cutAt) {
			// The arrivals from cutAt on are spaced at the new rate.
			kc := math.Ceil(float64(w.cutAt) * w.rate / 1e9)
			if w.cutRate <= 0 {
				return arrival{}, false
			}
			t = kc*(1e9/w.rate) + (float64(a.k)-kc)*(1e9/w.cutRate)
		}
		if t >= a.end {
			return arrival{}, false
		}
		x = arrival{at: int64(t), client: int32(a.k % w.clients)}
	}
	a.k++
	return x, true
}

// cutGap moves a.t to the next Poisson arrival of a workload whose rate
// changes at cutAt, and reports false when none comes. A gap that would
// cross cutAt is drawn again from cutAt at the new rate: the process is
// memoryless, so this is exact, and the arrivals before cutAt are those
// of the workload without the change.
func (a *arrivals) cutGap() bool {
	w := a.w
	at := float64(w.cutAt)
	if a.t >= at {
		if w.cutRate <= 0 {
			return false
		}
		a.t += float64(exp1(&a.r) * (1e9 / w.cutRate))
		return true
	}
	a.t += float64(exp1(&a.r) * (1e9 / w.rate))
	if a.t < at {
		return true
	}
	a.t = at
	if w.cutRate <= 0 {
		return false
	}
	a.t += float64(exp1(&a.r) * (1e9 / w.cutRate))
	return true
}
